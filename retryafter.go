package backoff

import "time"

// RetryAfterError signals that the operation should be retried after the
// given duration. When an operation returns one (directly or wrapped, as
// errors.As finds it), Retry waits that duration before the next attempt
// and resets the BackOff, so the backoff sequence restarts afterward. A
// negative Duration means no wait. The wait still counts against every
// limit: one that would overrun WithMaxTries, WithMaxElapsedTime or the
// context's deadline stops retrying at once, with that limit as the cause.
//
// The error that triggered the wait (passed to RetryAfter) is available via
// Unwrap, so errors.Is and errors.As see through the RetryAfterError. If
// retrying later stops because a limit is reached or the context ends, Retry
// reports that error as Error.LastErr instead of the RetryAfterError itself,
// so the underlying cause is not lost.
//
// When the other end asks for no further attempt at all (an exhausted
// quota, a server's negative pushback), return an error that matches
// ErrRetriesCanceled instead.
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
