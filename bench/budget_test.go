package bench

import (
	"context"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go"
	fsbudget "github.com/failsafe-go/failsafe-go/budget"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/policy"
)

// newRetryBudgetLibs returns each library's retry behind a retry budget,
// built once and reused: herdsafe's Policy of a retry stage with a token
// bucket inside it (which every attempt passes, so that retries draw on
// it), run with policy.Do; and failsafe-go's retry policy with a
// budget (WithBudget), run with Get. failsafe-go's budget can only be used
// through a retry or hedge policy, so the rows compare the pair.
func newRetryBudgetLibs() []lib {
	ours := policy.New(
		policy.Retry(backoff.WithMaxTries(maxAttempts)),
		policy.Guard(budget.NewTokenBucket()),
	)
	fs := failsafe.With[int](retrypolicy.NewBuilder[int]().
		WithMaxAttempts(maxAttempts).
		WithBackoff(500*time.Millisecond, 60*time.Second).
		WithJitterFactor(0.5).
		WithBudget(fsbudget.New()).
		Build())
	return []lib{
		{name: "herdsafe", ours: true, call: func(ctx context.Context, op operation) (int, error) {
			return policy.Do(ctx, ours, func(context.Context) (int, error) { return op() })
		}},
		failsafeRow(fs),
	}
}

// BenchmarkRetryBudgetSuccess is the cost of a retry behind a retry budget
// around a call that succeeds at once: what every call of a healthy
// dependency pays for the budget and the retry together.
func BenchmarkRetryBudgetSuccess(b *testing.B) {
	benchSuccess(b, newRetryBudgetLibs())
}
