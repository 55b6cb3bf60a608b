package backoff

import "time"

// Pushback is implemented by an error that carries an instruction from the
// other end: wait this long before the next attempt, or make no further
// attempt at all. The driver honours any error in the chain that
// implements it (found as errors.As finds it), not only this package's
// *RetryAfterError.
//
// If CancelAllRetries returns true (a server's pushback, an exhausted
// quota), the driver stops at once with Cause ErrRetriesCanceled and
// LastErr the error. Otherwise the next wait is RetryAfter (a negative one
// means no wait) instead of the BackOff's, and the BackOff's sequence
// starts over after it. The wait still counts against every limit: one
// that would overrun WithMaxTries, the time budgets or the context's
// deadline stops retrying at once, with that limit as the cause.
type Pushback interface {
	error
	// RetryAfter is the wait before the next attempt.
	RetryAfter() time.Duration
	// CancelAllRetries reports that no further attempt may be made.
	CancelAllRetries() bool
}

// RetryAfterError signals that the operation should be retried after the
// given duration. When an operation returns one (directly or wrapped), Retry
// waits that duration before the next attempt and resets the BackOff, so the
// backoff sequence restarts afterward. A negative Duration means no wait.
// It is this package's Pushback; see Pushback for the limits that still
// apply.
//
// The error that triggered the wait (passed to RetryAfter) is available via
// Unwrap, so errors.Is and errors.As see through the RetryAfterError. If
// retrying later stops because a limit is reached or the context ends, Retry
// reports that error as Error.LastErr instead of the RetryAfterError itself,
// so the underlying cause is not lost.
type RetryAfterError struct {
	Duration time.Duration
	err      error
}

// RetryAfter returns a RetryAfterError that tells Retry to wait the given
// duration before the next attempt. cause is the error that triggered the
// wait; it is preserved as Error.LastErr if retrying stops. Pass a non-nil
// cause so the failure reason is not lost; nil is allowed but discouraged.
func RetryAfter(d time.Duration, cause error) error {
	return &RetryAfterError{Duration: d, err: cause}
}

// Error returns a string representation of the RetryAfter error.
func (e *RetryAfterError) Error() string {
	msg := "retry after " + e.Duration.String()
	if e.err != nil {
		msg += ": " + e.err.Error()
	}
	return msg
}

// Unwrap returns the error that triggered the retry, if one was provided.
func (e *RetryAfterError) Unwrap() error { return e.err }

// RetryAfter returns Duration, the wait before the next attempt.
func (e *RetryAfterError) RetryAfter() time.Duration { return e.Duration }

// CancelAllRetries returns false: a RetryAfterError asks for a wait, not
// for the end of retrying.
func (e *RetryAfterError) CancelAllRetries() bool { return false }
