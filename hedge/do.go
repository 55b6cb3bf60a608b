package hedge

import (
	"context"
	"reflect"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/policy"
)

// Do runs op, hedged as h says: it starts the first attempt at once, and
// another each time the delay passes with no attempt answered, up to h's
// maximum; each attempt runs op through the inner Policy, as [policy.Do]
// does (a nil inner runs op alone). Stages that must see the whole hedged
// call, such as a bulkhead or a fallback, go in a Policy around Do; stages
// for each attempt, such as a timeout or a breaker, go in inner.
//
// Do returns as soon as an attempt succeeds, with its result; the other
// attempts are cancelled through their contexts (whose cause is
// [ErrCanceled]), and a loser that succeeds anyway has its result passed to
// the [WithDiscard] function. It does not wait for them: an attempt that
// honours its context returns soon after, and its goroutine ends; one that
// ignores its context runs until it returns. The winner's context is not
// cancelled, so that a result read after Do returns (an HTTP response's
// body) can still be read; it ends when ctx ends, and until then it stays
// attached to ctx, as any context derived from ctx does: hedge under a
// context that ends, such as a request's, not one that outlives many
// calls. A guard in inner (a breaker) sees a loser's cancelled call as
// Abandoned, not as a failure of the dependency.
//
// A call that fails returns the zero value and a *backoff.Error whose
// Attempts is the number of attempts made and whose LastErr is the error of
// the attempt that failed last, as the attempt returned it (op's own
// error, or the inner Policy's *backoff.Error). Its Cause says why the call
// stopped:
//
//   - backoff.ErrExhausted: every attempt h allows was made and failed;
//   - the budget guard's refusal (see [WithBudget]), if it suppressed an
//     attempt of a call whose attempts then all failed;
//   - context.Cause(ctx), when ctx is done: Do returns at once;
//   - for a fatal error (see [WithRetryable]), which ends the call at once:
//     backoff.ErrPermanent, backoff.ErrRetriesCanceled, a guard's refusal
//     (an error matching backoff.ErrRefused), or the Cause of the inner
//     Policy's error (a guard's refusal, ErrPermanent...);
//   - an error matching backoff.ErrInvalidConfiguration, before anything
//     runs, for a nil ctx, a nil or invalid h, a zero Op (each of them
//     named), or a [WithDiscard] function for another type.
//
// Like the core's entry points, Do starts nothing once ctx is done.
//
// # Panics
//
// A panic in an attempt is recovered on the attempt's goroutine. If the
// call is still waiting for that attempt, Do cancels the others and
// panics on the caller's goroutine with a *policy.PanicError that holds
// the value and the attempt's stack (put a policy.Recover stage in inner
// to have panics handled as errors instead). If the call has already
// returned, nobody is left to receive it and it is dropped.
//
// # Cost
//
// Every attempt runs on a goroutine of its own, the first included, so that
// Do can return the moment any attempt succeeds: a call allocates (the
// goroutines, their contexts, a channel, the timer), unlike a Policy's
// calls. That is why hedging is not a Policy stage. What a call allocates
// grows with the attempts it starts, not with [WithMaxAttempts].
func Do[T any](ctx context.Context, h *Hedger, inner *policy.Policy, op Op[T]) (T, error) {
	var zero T
	discard, err := check[T](ctx, h, op)
	if err != nil {
		return zero, &backoff.Error{Cause: err}
	}
	if ctx.Err() != nil {
		return zero, &backoff.Error{Cause: context.Cause(ctx)}
	}
	return newCall(h, op.fn, inner, discard).run(ctx)
}

// check reports what makes a call impossible, every argument's mistake
// named, and returns the call's discard function.
func check[T any](ctx context.Context, h *Hedger, op Op[T]) (func(T), error) {
	var errs [3]error
	if ctx == nil {
		errs[0] = settings.Invalid("Do was given a nil context")
	}
	if h == nil {
		errs[1] = settings.Invalid("Do was given a nil *Hedger")
	} else {
		errs[1] = h.Validate()
	}
	if op.fn == nil {
		errs[2] = settings.Invalid("Do was given an Op with no function; make one with Idempotent")
	}
	if err := setting.Join(errs[:]...); err != nil || h.discard == nil {
		return nil, err
	}
	discard, ok := h.discard.(func(T))
	if !ok {
		return nil, settings.Invalid("WithDiscard was given a %s, but the call's result type is %s",
			reflect.TypeOf(h.discard), reflect.TypeFor[T]())
	}
	return discard, nil
}
