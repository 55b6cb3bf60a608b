// Package backoff retries failed work without hurting the systems being
// retried.
//
// Most callers want [Retry] or [RetryCtx]: they run an operation, and if it
// fails, wait a randomized, growing interval and run it again, until it
// succeeds, returns a [Permanent] error, or a limit is reached. [Do] is the
// same driver for operations that take a context. On failure each of them
// returns an [*Error] that carries both the reason retrying stopped (Cause)
// and the operation's own last error (LastErr), so neither is lost.
//
// The waits come from a [BackOff] policy: [ExponentialBackOff] (the default),
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
)

// Stop indicates that no more retries should be made for use in NextBackOff().
const Stop time.Duration = -1

// BackOff is a backoff policy for retrying an operation.
//
// A BackOff is stateful and, unless its documentation says otherwise, not
// safe for concurrent use: each Retry call, Loop or Ticker needs a policy of
// its own. The driver calls Reset before the first attempt.
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

// validator is implemented by policies that can check their own settings.
// The driver, the Loop and the Ticker consult it before they start.
type validator interface {
	Validate() error
}

// validatePolicy reports why b cannot be used, or nil.
func validatePolicy(b BackOff) error {
	if b == nil {
		return invalidf("the BackOff is nil")
	}
	if v, ok := b.(validator); ok {
		return v.Validate()
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
