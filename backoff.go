// Package backoff retries failed work without hurting the systems being
// retried.
//
// Use the Retry function for retrying operations that may fail. Use
// RetryError for operations that return no result, and the RetryCtx and
// RetryErrorCtx variants to bound retrying with a context; Do and DoErr are
// the same driver for functions that take a context. If Retry does not fit
// your needs, copy it from retry.go and adapt it: the driver is that file
// with the options it reads, options.go, and nothing else unexported; a
// copy qualifies this package's exported names and has options of its own.
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

// Default values for ExponentialBackOff and the driver, Stop, and the
// kinds of Jitter.
const (
	DefaultInitialInterval     = 500 * time.Millisecond
	DefaultRandomizationFactor = 0.5
	DefaultMultiplier          = 1.5
	DefaultMaxInterval         = 60 * time.Second

	// DefaultMaxElapsedTime sets a default limit for the total retry
	// duration; see WithMaxElapsedTime.
	DefaultMaxElapsedTime = 15 * time.Minute

	// DefaultMaxRetryAfter is the longest wait an error may name that the
	// driver obeys; see WithMaxRetryAfter.
	DefaultMaxRetryAfter = 30 * time.Second

	// Stop is what NextBackOff returns to say that no more retries should
	// be made.
	Stop time.Duration = -1

	// RandomizationJitter waits d × (1 ± RandomizationFactor). It is the
	// zero value, so an ExponentialBackOff that sets no Jitter uses it.
	RandomizationJitter Jitter = 0
	// FullJitter waits uniformly in [0, d].
	FullJitter Jitter = 1
	// EqualJitter waits d/2 plus uniformly [0, d/2].
	EqualJitter Jitter = 2
	// DecorrelatedJitter waits min(MaxInterval, uniformly
	// [InitialInterval, 3 × previous wait]).
	DecorrelatedJitter Jitter = 3
)

// BackOff is the schedule of waits between attempts.
//
// A BackOff is stateful. Whether it may be shared is one rule: a BackOff
// that also has a method Clone() BackOff, as every BackOff of this package
// has, returns from it a copy whose sequence is where its own is (one with
// no state may return itself); the driver, a Loop and a Ticker each work on
// such a copy of their own, Reset before its first wait, so the BackOff may
// be shared by any number of them. A BackOff without Clone is used as it
// is: it belongs to one run at a time, and what is documented safe for
// concurrent use (a Retrier, a retry stage of package policy, httpretry's
// Transport) refuses it with ErrInvalidConfiguration.
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

// Notify is called after a failed attempt that will be retried, with the
// operation's error as returned and the wait before the next attempt;
// never for the failure that ends the run. See WithNotify.
type Notify func(error, time.Duration)
