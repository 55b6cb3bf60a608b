package backoff

import "context"

// Operation is the function Retry calls. It is invoked at least once and may
// be retried on error. Return a Permanent error to stop retrying
// immediately, or a RetryAfterError to control the delay before the next
// attempt.
type Operation[T any] func() (T, error)

// Retry is RetryCtx with context.Background(): retrying is bounded only by
// WithMaxElapsedTime (15 minutes by default), WithMaxTries, and the backoff
// policy. Use RetryCtx to bound it with a context as well.
func Retry[T any](operation Operation[T], opts ...RetryOption) (T, error) {
	return RetryCtx(context.Background(), operation, opts...)
}

// RetryCtx attempts the operation until it succeeds, returns a Permanent
// error, or backoff completes. It ensures the operation is executed at least
// once, unless ctx is already done or the configuration is invalid.
//
// On success it returns the operation result and a nil error. On any failure
// it returns the last result and an *Error whose Cause reports why it
// stopped — ErrPermanent, ErrExhausted, ErrMaxElapsedTime, the context
// cancellation cause, or ErrInvalidConfiguration — and whose LastErr holds
// the last operation error. See Error.
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
	if operation == nil {
		var zero T
		return zero, &Error{Cause: invalidf("the operation is nil")}
	}
	var res T
	err := run(ctx, nil, func() error {
		var err error
		res, err = operation()
		return err
	}, opts)
	return res, err
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
	return run(ctx, nil, operation, opts)
}

// Do is RetryCtx for a function that takes a context: the same options, the
// same defaults and the same *Error. fn receives the attempt's context: ctx,
// or ctx with the deadline of WithAttemptTimeout, as derived by any
// Instrumenter. fn is never started once ctx is done.
//
// Do cannot preempt fn: cancelling ctx ends the wait between attempts at
// once, but an attempt in progress ends only when fn returns, which a
// well-behaved fn does promptly when its context is done.
func Do[T any](ctx context.Context, fn func(context.Context) (T, error), opts ...RetryOption) (T, error) {
	if fn == nil {
		var zero T
		return zero, &Error{Cause: invalidf("the function given to Do is nil")}
	}
	var res T
	err := run(ctx, func(ctx context.Context) error {
		var err error
		res, err = fn(ctx)
		return err
	}, nil, opts)
	return res, err
}
