package backoff

import "context"

// RetryError is RetryErrorCtx with context.Background(), as Retry is to
// RetryCtx.
func RetryError(operation func() error, opts ...RetryOption) error {
	return RetryErrorCtx(context.Background(), operation, opts...)
}

// RetryErrorCtx is RetryCtx for an operation that returns only an error.
func RetryErrorCtx(ctx context.Context, operation func() error, opts ...RetryOption) error {
	if operation == nil {
		return invalidCall("RetryErrorCtx was given a nil operation")
	}
	return retry(ctx, opts, nil, func(context.Context, Attempt) error { return operation() })
}

// Do is the driver for a function that takes a context: the same options,
// defaults and *Error as RetryCtx. fn receives the attempt's context (ctx,
// as any Instrumenter derives it) and is never started once ctx is done:
// that attempt counts as refused (see ErrRefused), so the Cause is the
// context's and LastErr the last error of an attempt that ran. Do cannot
// preempt fn: an attempt in progress ends when fn returns, which a
// well-behaved fn does promptly once its context is done.
func Do[T any](ctx context.Context, fn func(context.Context) (T, error), opts ...RetryOption) (T, error) {
	var res T
	if fn == nil {
		return res, invalidCall("Do was given a nil function")
	}
	err := retry(ctx, opts, nil, func(ctx context.Context, _ Attempt) error {
		if ctx.Err() != nil {
			return refusedByContext{ctx}
		}
		var err error
		res, err = fn(ctx)
		return err
	})
	return res, err
}

// DoErr is Do for a function that returns only an error.
func DoErr(ctx context.Context, fn func(context.Context) error, opts ...RetryOption) error {
	if fn == nil {
		return invalidCall("DoErr was given a nil function")
	}
	return retry(ctx, opts, nil, func(ctx context.Context, _ Attempt) error {
		if ctx.Err() != nil {
			return refusedByContext{ctx}
		}
		return fn(ctx)
	})
}
