package budget

import (
	"context"

	"github.com/herdsafe/backoff"
)

// Execute runs fn under the Budget, as backoff.RunGuarded does: it asks
// Allow, and if admitted calls fn and tells Record how it ended, even if fn
// panics (the panic then goes on). A refusal returns Allow's error without calling fn. The attempt
// number is the one backoff.AttemptFrom finds in ctx (a retry stage given
// backoff.WithAttemptState puts it there), else 1: outside a retry loop,
// Execute only counts the call. A call whose ctx is done when fn returns
// is recorded as abandoned. Around Execute, a retry loop of your own
// should stop on ErrBudgetExhausted (with backoff.WithRetryable, say):
// to the loop it is an ordinary error. In a Policy, use WithGuard instead,
// which stops the retry stage itself.
func (b *Budget) Execute(ctx context.Context, fn func(context.Context) error) error {
	c := backoff.Call{Attempt: 1}
	if ctx != nil {
		if s, ok := backoff.AttemptFrom(ctx); ok {
			c.Attempt = s.Attempt
		}
	}
	return backoff.RunGuarded(ctx, b, c, fn)
}
