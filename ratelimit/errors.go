package ratelimit

import (
	"errors"

	"github.com/herdsafe/backoff/internal/setting"
)

// ErrRateLimited is the error of a call the Limiter refused because no
// token was to be had in time: at once, without WithWait or WithMaxWait;
// within the longest wait allowed, or before the context's deadline, with
// them. Through Limiter.Run, guard.Run or a policy it comes back wrapped in
// an error that matches backoff.ErrRefused (in a policy, the Cause of the
// *backoff.Error): match it with errors.Is.
var ErrRateLimited = errors.New("ratelimit: rate limit exceeded")

// settings makes the errors of the settings a Limiter cannot use.
const settings = setting.Package("ratelimit")

var (
	errNilContext = settings.NilContext()              // of Allow given a nil context
	errZero       = settings.NotMade("Limiter", "New") // of a Limiter New did not make
)
