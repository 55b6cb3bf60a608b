package redisguard

import (
	"context"

	"github.com/herdsafe/backoff/guard"
)

// runOnce runs fn under g, as guard.Run does with guard.Call{Attempt: 1},
// after checking ctx, fn and g (nil tells a nil receiver) itself, so that
// their errors name this package.
func runOnce(ctx context.Context, g guard.Guard, isNil bool, fn func(context.Context) error) error {
	switch {
	case ctx == nil:
		return errRunCtx
	case fn == nil:
		return errNilFunc
	case isNil:
		return errZero
	}
	return guard.Run(ctx, g, guard.Call{Attempt: 1}, fn)
}

// Run runs fn under the Budget, as budget.Budget.Run does: it is
// [guard.Run] with guard.Call{Attempt: 1}, so outside a retry loop it only
// counts the call (a first attempt is always admitted). It asks Allow, and
// if admitted calls fn and tells Record how it ended, even if fn panics
// (recorded with [guard.ErrPanicked]; the panic then goes on). A call
// whose ctx is done when fn returns is recorded as abandoned. A refusal
// returns, without calling fn, an error that matches backoff.ErrRefused
// and wraps Allow's error. In a Policy, use policy.Guard instead, inside
// the retry stage, where the Budget sees each attempt's number. A nil ctx
// or fn is reported as an error matching backoff.ErrInvalidConfiguration.
func (b *Budget) Run(ctx context.Context, fn func(context.Context) error) error {
	return runOnce(ctx, b, b == nil, fn)
}

// Run runs fn through the Breaker, as breaker.Breaker.Run does: it is
// [guard.Run] with guard.Call{Attempt: 1}. It returns ctx's cause if ctx
// is done already, without calling fn, or a refusal, without calling fn:
// an error that matches backoff.ErrRefused and wraps Allow's error (an
// [*breaker.OpenError], which errors.Is matches to breaker.ErrCircuitOpen,
// or the configuration error). Otherwise it calls fn and records how it
// ended, even if fn panics (recorded with [guard.ErrPanicked], a failure
// unless WithIsFailure says otherwise; the panic then goes on). A call
// whose ctx is done when fn returns is abandoned, and counts as neither
// success nor failure. A nil ctx or fn is reported as an error matching
// backoff.ErrInvalidConfiguration.
func (b *Breaker) Run(ctx context.Context, fn func(context.Context) error) error {
	if ctx != nil && fn != nil && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return runOnce(ctx, b, b == nil, fn)
}
