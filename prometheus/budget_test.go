package prombackoff_test

import (
	"context"
	"errors"
	"testing"

	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
)

func TestObserveBudget(t *testing.T) {
	in, reg := newInstrumenter(t)
	b := budget.NewTokenBucket() // 10 tokens; retries while more than 5
	if _, err := in.ObserveBudget("api", b); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	fail := guard.Outcome{Err: errTransient}
	for range 4 { // 10 tokens down to 6
		p, _ := b.Allow(ctx, guard.Call{Attempt: 1})
		b.Record(p, fail)
	}
	p, err := b.Allow(ctx, guard.Call{Attempt: 2})
	if err != nil {
		t.Fatalf("a retry at 6 tokens: %v", err)
	}
	b.Record(p, fail) // 5 tokens
	if _, err := b.Allow(ctx, guard.Call{Attempt: 2}); !errors.Is(err, budget.ErrBudgetExhausted) {
		t.Fatalf("a retry at 5 tokens: %v, want ErrBudgetExhausted", err)
	}
	expect(t, reg, `# HELP backoff_budget_retries_total Retries the budget admitted.
# TYPE backoff_budget_retries_total counter
backoff_budget_retries_total{name="api"} 1
# HELP backoff_budget_refusals_total Retries the budget refused.
# TYPE backoff_budget_refusals_total counter
backoff_budget_refusals_total{name="api"} 1
`, "backoff_budget_retries_total", "backoff_budget_refusals_total")
}
