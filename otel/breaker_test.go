package otelbackoff_test

import (
	"context"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/breaker"
)

func TestObserveBreaker(t *testing.T) {
	h := newHarness(t)
	clk := clock.NewMock()
	var changes []string
	cb := breaker.New(breaker.WithConsecutiveFailures(2), breaker.WithOpenDuration(time.Minute), breaker.WithClock(clk),
		breaker.WithStateChange(func(from, to breaker.State) { changes = append(changes, from.String()+">"+to.String()) }))
	if _, err := h.in.ObserveBreaker("payments", cb); err != nil {
		t.Fatal(err)
	}
	state := func(closed, open, halfOpen float64) map[string]float64 {
		return map[string]float64{
			"breaker.state=closed,guard.name=payments":    closed,
			"breaker.state=open,guard.name=payments":      open,
			"breaker.state=half-open,guard.name=payments": halfOpen,
		}
	}
	equalPoints(t, "closed", h.points(t, "backoff.breaker.state"), state(1, 0, 0))

	ctx := context.Background()
	_ = cb.Run(ctx, func(context.Context) error { return nil })
	_ = cb.Run(ctx, func(context.Context) error { return errTransient })
	_ = cb.Run(ctx, func(context.Context) error { return errTransient }) // trips it
	_ = cb.Run(ctx, func(context.Context) error { return nil })          // refused
	equalPoints(t, "open", h.points(t, "backoff.breaker.state"), state(0, 1, 0))
	equalPoints(t, "transitions", h.points(t, "backoff.breaker.transitions"), map[string]float64{"guard.name=payments": 1})
	equalPoints(t, "refusals", h.points(t, "backoff.breaker.refusals"), map[string]float64{"guard.name=payments": 1})
	equalPoints(t, "calls", h.points(t, "backoff.breaker.calls"), map[string]float64{
		"breaker.outcome=success,guard.name=payments": 1,
		"breaker.outcome=failure,guard.name=payments": 2,
		"breaker.outcome=neutral,guard.name=payments": 0,
		"breaker.outcome=ignored,guard.name=payments": 0,
	})

	// Once the open duration has passed, reading the state moves the
	// breaker to half-open, and runs its hook on the collecting goroutine.
	clk.Add(time.Minute)
	equalPoints(t, "half-open", h.points(t, "backoff.breaker.state"), state(0, 0, 1))
	equalPoints(t, "transitions", h.points(t, "backoff.breaker.transitions"), map[string]float64{"guard.name=payments": 2})
	if len(changes) != 2 || changes[1] != "open>half-open" {
		t.Errorf("state changes %v, want closed>open, open>half-open", changes)
	}
}
