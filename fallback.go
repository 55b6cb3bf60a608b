package backoff

import (
	"context"
	"reflect"
)

// WithFallback returns a stage that calls f when the stages inside it
// fail, and returns what f returns instead: stale data from a cache, a
// default configuration. f receives the caller's context and the failure,
// an *Error: retries exhausted, a guard's refusal (a breaker open, a
// bulkhead full, a budget spent), a permanent error, a time budget spent.
// It is not called on success, nor once the caller's context is done: then
// the call returns the context's error, as the driver always does. If f
// returns an error, the call fails with it (return the error f was given to
// keep it).
//
// f's result type must be the call's: a Policy with this stage serves
// Execute[T] for that T only, and reports any other as
// ErrInvalidConfiguration before running anything. A nil f is reported
// as ErrInvalidConfiguration. A panic in f goes on to the caller.
func WithFallback[T any](f func(ctx context.Context, err error) (T, error)) Stage {
	if f == nil {
		return Stage{err: invalidf("WithFallback was given a nil function")}
	}
	return Stage{kind: fallbackStage, v: f}
}

// WithFallbackErr is WithFallback for a call that returns only an error
// (Policy.Execute, DoErr): f runs on the same failures, and the call
// returns f's error, nil to swallow the failure. With Execute[T] it serves
// any T, and a nil error from f gives T's zero value. A nil f is reported
// as ErrInvalidConfiguration.
func WithFallbackErr(f func(ctx context.Context, err error) error) Stage {
	if f == nil {
		return Stage{err: invalidf("WithFallbackErr was given a nil function")}
	}
	return Stage{kind: fallbackStage, v: f}
}

// fallingBack runs the rest of the stages, and the fallback f if they fail
// while the caller's context is alive.
func fallingBack(ctx context.Context, f any, rest []Stage, c *call) error {
	err := run(ctx, rest, c)
	if err == nil || ctx.Err() != nil {
		return err
	}
	return c.fallback(f, ctx, settle(ctx, err, 1))
}

// fallbackFits reports whether the fallback f can serve a call whose
// result is a T, or an error naming the mismatch.
func fallbackFits[T any](f any) error {
	switch f.(type) {
	case func(context.Context, error) (T, error), func(context.Context, error) error:
		return nil
	}
	return invalidf("the Policy's fallback %s does not return the call's result type %s",
		reflect.TypeOf(f), reflect.TypeFor[T]())
}
