package otelbackoff_test

import (
	"context"
	"errors"
	"testing"

	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
)

func TestObserveBudget(t *testing.T) {
	h := newHarness(t)
	b := budget.NewTokenBucket() // 10 tokens; retries while more than 5
	if _, err := h.in.ObserveBudget("api", b); err != nil {
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
	equalPoints(t, "retries", h.points(t, "backoff.budget.retries"), map[string]float64{"guard.name=api": 1})
	equalPoints(t, "refusals", h.points(t, "backoff.budget.refusals"), map[string]float64{"guard.name=api": 1})
}
