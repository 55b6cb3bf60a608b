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
			"breaker.state=closed,guard.name=payments":        closed,
			"breaker.state=open,guard.name=payments":          open,
			"breaker.state=half-open,guard.name=payments":     halfOpen,
			"breaker.state=forced-open,guard.name=payments":   0,
			"breaker.state=forced-closed,guard.name=payments": 0,
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

// A breaker forced open or closed by hand reports the forced state, and
// counts the changes made by hand and the slow calls.
func TestObserveBreakerForcedAndSlow(t *testing.T) {
	h := newHarness(t)
	clk := clock.NewMock()
	cb := breaker.New(breaker.WithClock(clk), breaker.WithFailureRate(0.5, 10, 10), breaker.WithSlowCalls(time.Second, 1))
	if _, err := h.in.ObserveBreaker("payments", cb); err != nil {
		t.Fatal(err)
	}
	_ = cb.Run(context.Background(), func(context.Context) error { clk.Add(2 * time.Second); return nil })
	state := func(st string) map[string]float64 {
		m := map[string]float64{}
		for _, s := range []string{"closed", "open", "half-open", "forced-open", "forced-closed"} {
			v := 0.0
			if s == st {
				v = 1
			}
			m["breaker.state="+s+",guard.name=payments"] = v
		}
		return m
	}
	_ = cb.ForceOpen()
	equalPoints(t, "forced open", h.points(t, "backoff.breaker.state"), state("forced-open"))
	_ = cb.ForceClosed()
	equalPoints(t, "forced closed", h.points(t, "backoff.breaker.state"), state("forced-closed"))
	_ = cb.Reset()
	equalPoints(t, "reset", h.points(t, "backoff.breaker.state"), state("closed"))
	equalPoints(t, "forced transitions", h.points(t, "backoff.breaker.forced_transitions"), map[string]float64{"guard.name=payments": 3})
	equalPoints(t, "transitions", h.points(t, "backoff.breaker.transitions"), map[string]float64{"guard.name=payments": 3})
	equalPoints(t, "slow calls", h.points(t, "backoff.breaker.slow_calls"), map[string]float64{"guard.name=payments": 1})
}
