package otelbackoff

import (
	"context"

	"go.opentelemetry.io/otel/trace"
)

// attempt is what AfterAttempt must know of an attempt that BeforeAttempt
// began: the caller's context, the attempt's span and the Instrumenter of
// its name, with its series. It wraps the context the tracer returned with the span, and is
// the context the operation receives: one allocation of ours, and the
// tracer's own lookups in the caller's context do not pass through it.
//
// The span in AfterAttempt's context is not enough, for two reasons. A
// give-up that comes after the attempt's wait (State.Reported) is recorded
// on the caller's span, and no context of the tracer's leads back to it.
// And AfterAttempt is given the context of the last Instrumenter of the
// retry: when another one after this (of this package, or anyone's) starts
// a span of its own, the span in the context is that one.
type attempt struct {
	context.Context // the tracer's: the caller's, with the span
	caller          context.Context
	span            trace.Span
	named           *named // the Instrumenter that began it
	n               int    // the attempt's number
}

// attemptKey finds the attempt of an Instrumenter of a name: each finds its
// own, even when several are given to one retry (of different
// Instrumenters, or of different names of one), or one is given to nested
// retry stages. The key is a pointer, so that a lookup allocates nothing.
type attemptKey struct{ named *named }

// Value returns a for its Instrumenter's key, and what the caller's context
// holds for any other.
func (a *attempt) Value(key any) any {
	if k, ok := key.(attemptKey); ok && k.named == a.named {
		return a
	}
	return a.Context.Value(key)
}

// attemptOf returns the attempt k in ctx that n began, or nil.
func (n *named) attemptOf(ctx context.Context, k int) *attempt {
	if k < 1 {
		return nil // no attempt
	}
	a, _ := ctx.Value(attemptKey{n}).(*attempt)
	if a == nil || a.n != k {
		return nil
	}
	return a
}
