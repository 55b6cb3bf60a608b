package throttle

import (
	"github.com/herdsafe/backoff/internal/sentinel"
	"github.com/herdsafe/backoff/internal/setting"
)

// ErrThrottled is the error of a call that a Throttle rejected locally.
// Through guard.Run or a policy it comes back wrapped in an error that
// matches backoff.ErrRefused; inside a policy that error is the Cause of
// the call's *backoff.Error (of the retry stage it stops, whose LastErr
// keeps the last real error): match it with errors.Is.
//
// It names itself for telemetry: error.type "throttle.ErrThrottled",
// retry.cause "throttled".
var ErrThrottled error = sentinel.New("throttle: rejected locally: the backend rejects too many calls", "throttle.ErrThrottled", "throttled")

// settings makes the errors of the settings a Throttle cannot use.
const settings = setting.Package("throttle")

var (
	errNilContext = settings.NilContext()               // of Allow given a nil context
	errZero       = settings.NotMade("Throttle", "New") // of a Throttle New did not make
)
