package backoff

import "time"

// RetryAfterError names the wait before the next attempt. It is one error
// of the kind the driver obeys: any error in the chain of an operation's
// error (found as errors.As finds it) that has a method
// RetryAfter() time.Duration names the wait, so a leaf of the caller's
// code can name it without importing this package. If that error also has
// a method CancelAllRetries() bool that returns true, the run stops at
// once with Cause ErrRetriesCanceled.
//
// The rule for a named wait, which the driver, a Loop (see Loop.Override),
// a Retrier, a retry stage of package policy, httpretry and the gRPC
// module all follow, is the one of cenkalti/backoff v5: the attempt budget
// and the BackOff are asked first, so WithMaxTries, a StopBackOff or a
// done WithContext end the run with their cause; then the named wait
// replaces the BackOff's, and the BackOff starts over, so a later wait
// that no error names is the first of the sequence again. A named wait
// longer than WithMaxRetryAfter (DefaultMaxRetryAfter, 30 seconds, by
// default) is not slept: the run stops with ErrRetryAfterTooLong. A
// negative wait means no wait. The wait still counts against every other
// limit, WithMaxElapsedTime and the context's deadline.
//
// The error that triggered the wait (passed to RetryAfter) is available
// via Unwrap, so errors.Is and errors.As see through the RetryAfterError,
// and if retrying stops, the driver reports it as Error.LastErr, so the
// underlying cause is not lost.
type RetryAfterError struct {
	Duration time.Duration
	err      error
}

// RetryAfter returns a RetryAfterError that names d as the wait before the
// next attempt. cause is the error that triggered the wait; it is
// preserved as Error.LastErr if retrying stops. Pass a non-nil cause so
// the failure reason is not lost; nil is allowed but discouraged.
func RetryAfter(d time.Duration, cause error) error {
	return &RetryAfterError{Duration: d, err: cause}
}

// RetryAfter returns the wait e names: its Duration; 0 for a nil e.
func (e *RetryAfterError) RetryAfter() time.Duration {
	if e == nil {
		return 0
	}
	return e.Duration
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
