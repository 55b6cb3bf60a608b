package backoff

import "context"

// Do is the driver for a function that takes a context: the same options,
// the same defaults and the same *Error as RetryCtx. fn receives the
// attempt's context: ctx, or ctx with the deadline of WithAttemptTimeout,
// as derived by any Instrumenter, carrying the attempt's State under
// WithAttemptState. fn is never started once ctx is done (then the Cause is
// the context's and nothing ran), where RetryCtx would run its operation
// once.
//
// Do cannot preempt fn: cancelling ctx ends the wait between attempts at
// once, but an attempt in progress ends only when fn returns, which a
// well-behaved fn does promptly when its context is done.
func Do[T any](ctx context.Context, fn func(context.Context) (T, error), opts ...RetryOption) (T, error) {
	return retryCall(ctx, &doEntry, fn, opts)
}

// DoErr is Do for a function that returns only an error.
func DoErr(ctx context.Context, fn func(context.Context) error, opts ...RetryOption) error {
	var f func(context.Context) (struct{}, error)
	if fn != nil {
		f = func(ctx context.Context) (struct{}, error) { return struct{}{}, fn(ctx) }
	}
	_, err := retryCall(ctx, &doErrEntry, f, opts)
	return err
}
