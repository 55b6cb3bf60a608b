package backoff

import "context"

// Operation is the function Retry calls. It is invoked at least once and may
// be retried on error. Return a Permanent error to stop retrying
// immediately, or a RetryAfterError to control the delay before the next
// attempt.
type Operation[T any] func() (T, error)

// Retry is RetryCtx with context.Background(): retrying is bounded only by
// WithMaxElapsedTime (15 minutes by default), WithMaxTries, and the
// BackOff. Use RetryCtx to bound it with a context as well.
func Retry[T any](operation Operation[T], opts ...RetryOption) (T, error) {
	return RetryCtx(context.Background(), operation, opts...)
}

// RetryCtx attempts the operation until it succeeds, returns a Permanent
// error, or backoff completes. It ensures the operation is executed at
// least once, even when ctx is already done (then the Cause is the
// context's, and LastErr the operation's error), unless the configuration
// is invalid. This is where it differs from Do and DoErr, which never start
// their function once ctx is done.
//
// On success it returns the operation result and a nil error. On any failure
// it returns the last result and an *Error whose Cause reports why it
// stopped — ErrPermanent, ErrExhausted, ErrMaxElapsedTime,
// ErrRetriesCanceled, the context cancellation cause, or
// ErrInvalidConfiguration — and whose LastErr holds the last operation
// error. See Error.
//
// ctx bounds the retry loop: its cancellation or deadline stops further
// attempts and interrupts the wait between them, and a wait that would end
// after ctx's deadline is not started (the Cause is then
// context.DeadlineExceeded and LastErr the operation's last error).
// Whether ctx is done is decided by ctx.Err(), never by the operation's
// error: an error matching context.Canceled or context.DeadlineExceeded
// while ctx is alive came from another context and is retried like any
// other. The operation receives no context, so capture ctx inside the
// operation if you want cancellation to abort an in-flight attempt, or use
// Do. To bound only how long backoff keeps retrying, without affecting
// in-flight attempts, use WithMaxElapsedTime instead.
//
// The driver runs on the calling goroutine and starts none of its own. When
// the operation succeeds at the first call, it allocates nothing.
func RetryCtx[T any](ctx context.Context, operation Operation[T], opts ...RetryOption) (T, error) {
	var fn func(context.Context) (T, error)
	if operation != nil {
		fn = func(context.Context) (T, error) { return operation() }
	}
	return retryCall(ctx, &retryEntry, fn, opts)
}

// RetryError is RetryErrorCtx with context.Background(), as Retry is to
// RetryCtx.
func RetryError(operation func() error, opts ...RetryOption) error {
	return RetryErrorCtx(context.Background(), operation, opts...)
}

// RetryErrorCtx is RetryCtx for an operation that returns no result, only an
// error. It behaves identically to RetryCtx in every other respect,
// including the options it accepts and the *Error it returns on failure.
func RetryErrorCtx(ctx context.Context, operation func() error, opts ...RetryOption) error {
	var fn func(context.Context) (struct{}, error)
	if operation != nil {
		fn = func(context.Context) (struct{}, error) { return struct{}{}, operation() }
	}
	_, err := retryCall(ctx, &retryErrorEntry, fn, opts)
	return err
}
