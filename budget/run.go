package budget

import (
	"context"

	"github.com/herdsafe/backoff/guard"
)

// Run runs fn under the Budget as a first attempt: it is [guard.Run] with
// guard.Call{Attempt: 1}. It asks Allow, and if admitted calls fn and
// tells Record how it ended, even if fn panics (the panic then goes on);
// a call whose ctx is done when fn returns is recorded as abandoned. A
// first attempt is always admitted, so Run refuses nothing but for a
// misconfigured Budget (an error that matches [backoff.ErrRefused] and
// wraps the configuration error); it only counts the call.
//
// A retry loop of your own that the Budget should limit calls guard.Run
// with the number of each attempt instead, counted in its closure. A
// retry the Budget refuses then returns an error that matches
// [backoff.ErrRefused] and wraps ErrBudgetExhausted, which stops a retry
// driver around it at once, with that error as its Cause. In a policy,
// put the Budget inside the retry stage with policy.Guard, which passes
// the attempt numbers itself.
func (b *Budget) Run(ctx context.Context, fn func(context.Context) error) error {
	return guard.Run(ctx, b, guard.Call{Attempt: 1}, fn)
}
