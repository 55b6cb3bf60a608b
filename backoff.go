// Package backoff retries failed work without hurting the systems being
// retried.
//
// Use the Retry function for retrying operations that may fail. Use
// RetryError for operations that return no result, and the RetryCtx and
// RetryErrorCtx variants to bound retrying with a context; Do and DoErr are
// the same driver for functions that take a context. If Retry does not fit
// your needs, copy it from retry.go and adapt it: the driver is that one
// file, with the options it reads (options.go) and the few lines of
// context.go it names.
//
// Each of them runs an operation, and if it fails, waits a randomized,
// growing interval and runs it again, until it succeeds, returns a
// Permanent error, or a limit is reached. On failure each returns an
// *Error that carries both the reason retrying stopped (Cause) and the
// operation's own last error (LastErr), so neither is lost; see Error and
// the causes ErrPermanent, ErrExhausted, ErrMaxElapsedTime,
// ErrRetriesCanceled and ErrRefused.
//
// The waits come from a BackOff: ExponentialBackOff (the default, with a
// choice of Jitter), ConstantBackOff, ZeroBackOff and StopBackOff, or one
// of your own. There is also a Ticker type similar to time.Ticker, for
// code that works with channels, and a Loop for supervisors that run for
// the life of a process.
//
// Time comes from github.com/benbjohnson/clock: pass WithClock a
// clock.Mock, or run a test inside a testing/synctest bubble, and a test
// advances time instead of spending it.
//
// The package policy composes the driver with a circuit breaker, a
// bulkhead, a retry budget, timeouts and fallbacks, built once and shared.
package backoff

import "time"

// Default values for ExponentialBackOff and the driver, and Stop.
const (
	DefaultInitialInterval     = 500 * time.Millisecond
	DefaultRandomizationFactor = 0.5
	DefaultMultiplier          = 1.5
	DefaultMaxInterval         = 60 * time.Second

	// DefaultMaxElapsedTime sets a default limit for the total retry
	// duration; see WithMaxElapsedTime.
	DefaultMaxElapsedTime = 15 * time.Minute

	// Stop is what NextBackOff returns to say that no more retries should
	// be made.
	Stop time.Duration = -1
)

// BackOff is the schedule of waits between attempts.
//
// A BackOff is stateful. Whether it may be shared is one rule: the driver,
// a Loop and a Ticker each work on a clone of their own of a BackOff that
// implements Cloner, as every BackOff of this package does, so such a
// BackOff may be shared by any number of them; a BackOff that does not is
// used as it is, so it belongs to one of them at a time. The clone (or the
// BackOff itself) is Reset before its first wait.
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

// Cloner is implemented by a BackOff that can give each user a copy of its
// own, so that one value may configure any number of concurrent runs; see
// BackOff. Clone returns a BackOff whose sequence is where the receiver's
// is; the user Resets it before its first wait. A BackOff with no state may
// return itself.
type Cloner interface {
	BackOff
	Clone() BackOff
}
