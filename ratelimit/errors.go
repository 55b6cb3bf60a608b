package ratelimit

import (
	"errors"
	"time"

	"github.com/herdsafe/backoff/internal/setting"
)

// ErrRateLimited is matched, with errors.Is, by the error of a call the
// Limiter refused because no token was to be had in time: at once, without
// WithWait or WithMaxWait; within the longest wait allowed, or before the
// context's deadline, with them. Through Limiter.Run, guard.Run or a
// policy it comes back wrapped in an error that matches backoff.ErrRefused
// (in a policy, the Cause of the *backoff.Error).
//
// The refusal itself has a method RetryAfter() time.Duration, which
// returns how long from the moment it is called until the Limiter has a
// token again, counting the tokens the calls waiting have reserved: the
// wait a server's shedding middleware tells the client (package pushback
// reads it, and so httpshed's Retry-After and grpcbackoff's pushback do).
// Read it with errors.As into an interface{ RetryAfter() time.Duration }.
var ErrRateLimited = errors.New("ratelimit: rate limit exceeded")

// limited is the refusal of a call for want of a token. It holds only its
// Limiter, so that refusing allocates nothing: it reads the time until the
// next token when asked.
type limited struct{ l *Limiter }

func (e limited) Error() string { return ErrRateLimited.Error() }

// Is reports whether target is ErrRateLimited.
func (e limited) Is(target error) bool { return target == ErrRateLimited }

// RetryAfter returns how long until the Limiter has a token, from now on
// its clock; 0 if it has one now.
func (e limited) RetryAfter() time.Duration { return e.l.untilToken() }

// settings makes the errors of the settings a Limiter cannot use.
const settings = setting.Package("ratelimit")

var (
	errNilContext = settings.NilContext()              // of Allow given a nil context
	errZero       = settings.NotMade("Limiter", "New") // of a Limiter New did not make
)
