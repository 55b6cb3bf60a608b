package prombackoff_test

import (
	"context"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/breaker"
)

func TestObserveBreaker(t *testing.T) {
	in, reg := newInstrumenter(t)
	clk := clock.NewMock()
	cb := breaker.New(breaker.WithConsecutiveFailures(2), breaker.WithOpenDuration(time.Minute), breaker.WithClock(clk))
	if _, err := in.ObserveBreaker("payments", cb); err != nil {
		t.Fatal(err)
	}
	state := func(closed, open, halfOpen string) string {
		return `# HELP backoff_breaker_state 1 for the breaker's current state, 0 for the others.
# TYPE backoff_breaker_state gauge
backoff_breaker_state{name="payments",state="closed"} ` + closed + `
backoff_breaker_state{name="payments",state="forced-closed"} 0
backoff_breaker_state{name="payments",state="forced-open"} 0
backoff_breaker_state{name="payments",state="half-open"} ` + halfOpen + `
backoff_breaker_state{name="payments",state="open"} ` + open + `
`
	}
	expect(t, reg, state("1", "0", "0"), "backoff_breaker_state")

	ctx := context.Background()
	_ = cb.Run(ctx, func(context.Context) error { return nil })
	_ = cb.Run(ctx, func(context.Context) error { return errTransient })
	_ = cb.Run(ctx, func(context.Context) error { return errTransient }) // trips it
	_ = cb.Run(ctx, func(context.Context) error { return nil })          // refused
	expect(t, reg, state("0", "1", "0")+`# HELP backoff_breaker_transitions_total Changes of the breaker's state.
# TYPE backoff_breaker_transitions_total counter
backoff_breaker_transitions_total{name="payments"} 1
# HELP backoff_breaker_refusals_total Calls the breaker refused.
# TYPE backoff_breaker_refusals_total counter
backoff_breaker_refusals_total{name="payments"} 1
# HELP backoff_breaker_calls_total Calls the breaker admitted and recorded, by how it counted them.
# TYPE backoff_breaker_calls_total counter
backoff_breaker_calls_total{name="payments",outcome="failure"} 2
backoff_breaker_calls_total{name="payments",outcome="ignored"} 0
backoff_breaker_calls_total{name="payments",outcome="neutral"} 0
backoff_breaker_calls_total{name="payments",outcome="success"} 1
`, "backoff_breaker_state", "backoff_breaker_transitions_total", "backoff_breaker_refusals_total", "backoff_breaker_calls_total")

	// Once the open duration has passed, a scrape moves it to half-open.
	clk.Add(time.Minute)
	expect(t, reg, state("0", "0", "1"), "backoff_breaker_state")
}

// A breaker forced open by hand reports the forced state, and counts the
// changes made by hand and the slow calls.
func TestObserveBreakerForcedAndSlow(t *testing.T) {
	in, reg := newInstrumenter(t)
	clk := clock.NewMock()
	cb := breaker.New(breaker.WithClock(clk), breaker.WithFailureRate(0.5, 10, 10), breaker.WithSlowCalls(time.Second, 1))
	if _, err := in.ObserveBreaker("payments", cb); err != nil {
		t.Fatal(err)
	}
	_ = cb.Run(context.Background(), func(context.Context) error { clk.Add(2 * time.Second); return nil })
	_ = cb.ForceClosed()
	_ = cb.ForceOpen()
	expect(t, reg, `# HELP backoff_breaker_state 1 for the breaker's current state, 0 for the others.
# TYPE backoff_breaker_state gauge
backoff_breaker_state{name="payments",state="closed"} 0
backoff_breaker_state{name="payments",state="forced-closed"} 0
backoff_breaker_state{name="payments",state="forced-open"} 1
backoff_breaker_state{name="payments",state="half-open"} 0
backoff_breaker_state{name="payments",state="open"} 0
# HELP backoff_breaker_forced_transitions_total Changes of the breaker's state made by hand: ForceOpen, ForceClosed, Reset.
# TYPE backoff_breaker_forced_transitions_total counter
backoff_breaker_forced_transitions_total{name="payments"} 2
# HELP backoff_breaker_slow_calls_total Calls the breaker recorded as slower than its slow-call duration.
# TYPE backoff_breaker_slow_calls_total counter
backoff_breaker_slow_calls_total{name="payments"} 1
`, "backoff_breaker_state", "backoff_breaker_forced_transitions_total", "backoff_breaker_slow_calls_total")
}
