package otelbackoff

import (
	"context"

	"go.opentelemetry.io/otel/trace"
)

// attempt is what AfterAttempt must know of an attempt that BeforeAttempt
// began: the caller's context, the attempt's span and the series of its
// name. It wraps the context the tracer returned with the span, and is
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
	named           *named
	in              *Instrumenter
	n               int // the attempt's number
}

// attemptKey finds the attempt of an Instrumenter: each finds its own, even
// when several are given to one retry, or one is given to nested retry
// stages.
type attemptKey struct{ in *Instrumenter }

// Value returns a for its Instrumenter's key, and what the caller's context
// holds for any other.
func (a *attempt) Value(key any) any {
	if k, ok := key.(attemptKey); ok && k.in == a.in {
		return a
	}
	return a.Context.Value(key)
}

// attemptOf returns the attempt n in ctx, or nil.
func (in *Instrumenter) attemptOf(ctx context.Context, n int) *attempt {
	if n < 1 {
		return nil // before any attempt: ctx is the caller's
	}
	a, _ := ctx.Value(attemptKey{in}).(*attempt)
	if a == nil || a.n != n {
		return nil
	}
	return a
}
