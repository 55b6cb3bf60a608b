package policy

import (
	"context"
	"reflect"
)

// Fallback returns a stage that calls f when the stages inside it fail,
// and returns what f returns instead: stale data from a cache, a default
// configuration. f receives the caller's context and the failure, a
// *backoff.Error: retries exhausted, a guard's refusal (a breaker open, a
// bulkhead full, a budget spent), a permanent error. It is not called on
// success, nor once the context it receives is done (the caller's, or a
// Timeout stage's around it: put the fallback outermost to serve it when
// a timeout ends the call): then the call returns the context's error, as
// the driver always does. If f returns an error,
// the call fails with it (return the error f was given to keep it).
//
// f's result type must be the call's: a Policy with this stage serves
// Do[T] for that T only, and reports any other as
// backoff.ErrInvalidConfiguration before running anything. A nil f is
// reported as backoff.ErrInvalidConfiguration. A panic in f goes on to the
// caller.
func Fallback[T any](f func(ctx context.Context, err error) (T, error)) Stage {
	if f == nil {
		return Stage{err: settings.Invalid("Fallback was given a nil function")}
	}
	return Stage{kind: fallbackStage, v: f}
}

// FallbackErr is Fallback for a call that returns only an error
// (Policy.DoErr): f runs on the same failures, and the call returns f's
// error, nil to swallow the failure. With Do[T] it serves any T, and a nil
// error from f gives T's zero value. A nil f is reported as
// backoff.ErrInvalidConfiguration.
func FallbackErr(f func(ctx context.Context, err error) error) Stage {
	if f == nil {
		return Stage{err: settings.Invalid("FallbackErr was given a nil function")}
	}
	return Stage{kind: fallbackStage, v: f}
}

// fallbackFits reports whether the fallback f can serve a call whose
// result is a T, or an error naming the mismatch.
func fallbackFits[T any](f any) error {
	switch f.(type) {
	case func(context.Context, error) (T, error), func(context.Context, error) error:
		return nil
	}
	return settings.Invalid("the Policy's fallback %s does not return the call's result type %s",
		reflect.TypeOf(f), reflect.TypeFor[T]())
}
