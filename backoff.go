// Package backoff retries failed work without hurting the systems being
// retried.
//
// Most callers want [Retry] or [RetryCtx]: they run an operation, and if it
// fails, wait a randomized, growing interval and run it again, until it
// succeeds, returns a [Permanent] error, or a limit is reached. [Do] and
// [DoErr] are the same driver for functions that take a context. On
// failure each of them returns an [*Error] that carries both the reason
// retrying stopped (Cause) and the operation's own last error (LastErr), so
// neither is lost.
//
// A [Policy] is built once and shared: it composes stages, outermost first,
// around every call made through it with [Execute] or [Policy.Execute] —
// a retry stage, a per-attempt timeout, panic recovery, a fallback, and
// any [Guard] (a circuit breaker, a bulkhead, a retry budget).
//
// The waits come from a [BackOff]: [ExponentialBackOff] (the default),
// [ConstantBackOff], [ZeroBackOff] and [StopBackOff], or one of your own.
// [Ticker] delivers the same schedule on a channel, and [Loop] serves
// supervisors that run for the life of a process.
//
// Time comes from github.com/benbjohnson/clock: pass [WithClock] a
// clock.Mock, or run a test inside a testing/synctest bubble, and a test
// advances time instead of spending it.
package backoff

import (
	"fmt"
	"time"

	"github.com/herdsafe/backoff/internal/typednil"
)

// Stop is what NextBackOff returns to say that no more retries should be
// made.
const Stop time.Duration = -1

// BackOff is the schedule of waits between attempts.
//
// A BackOff is stateful. Every run of the driver, every Loop and every
// Ticker works on a copy of its own when the BackOff has a method
// Clone() BackOff, as every BackOff of this package has, so such a BackOff
// may be shared by any number of them; a BackOff without Clone is used as it
// is, so it belongs to one run at a time. That is the whole rule. The copy
// (or the BackOff itself) is Reset before the first attempt.
type BackOff interface {
	// NextBackOff returns the duration to wait before retrying the operation,
	// or Stop to indicate that no more retries should be made.
	//
	// Example usage:
	//
	//	duration := backoff.NextBackOff()
	//	if duration == backoff.Stop {
	//		// Do not retry operation.
	//	} else {
	//		// Sleep for duration and retry operation.
	//	}
	NextBackOff() time.Duration

	// Reset to initial state.
	Reset()
}

// cloner is implemented by a BackOff that can give each run a copy of its
// own; see BackOff.
type cloner interface {
	Clone() BackOff
}

// validator is implemented by a BackOff or a Guard that can check its own
// settings. The driver, the Loop, the Ticker and the
// Policy consult it before they start.
type validator interface {
	Validate() error
}

// validateBackOff reports why b cannot be used, or nil.
func validateBackOff(b BackOff) error {
	if b == nil {
		return invalidf("the BackOff is nil")
	}
	if v, ok := b.(validator); ok {
		return v.Validate() // this package's BackOffs: a typed nil included
	}
	if typednil.Is(b) {
		return invalidf("the BackOff is a nil %T", b)
	}
	return nil
}

// configError is an invalid setting: it prints the setting and matches
// ErrInvalidConfiguration.
type configError struct{ msg string }

func (e *configError) Error() string { return "backoff: invalid configuration: " + e.msg }

func (e *configError) Is(target error) bool { return target == ErrInvalidConfiguration }

// invalidf returns an error that matches ErrInvalidConfiguration and
// explains which setting is wrong. It is never on a hot path, so it is not
// inlined into one.
//
//go:noinline
func invalidf(format string, args ...any) error {
	return &configError{msg: fmt.Sprintf(format, args...)}
}
