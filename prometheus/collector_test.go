package prombackoff_test

import (
	"strings"
	"testing"

	"github.com/herdsafe/backoff/internal/testkit/telemetrytest"
	prombackoff "github.com/herdsafe/backoff/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

type observe func() (*prombackoff.Registration, error)

// The Observe methods keep the promises of both modules: see
// telemetrytest.Observe.
func TestObserve(t *testing.T) {
	in, reg := newInstrumenter(t)
	telemetrytest.Observe(t, in, "prombackoff", func(guard string) int {
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range families {
			if f.GetName() != "backoff_breaker_state" {
				continue
			}
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "name" && l.GetValue() == guard {
						n++
					}
				}
			}
		}
		return n
	})
}

// Every guard on one registry, as a scrape shows it: a Bulkhead and a
// PriorityBulkhead side by side, their common metrics with one set of
// labels and one help text.
func TestObserveExposition(t *testing.T) {
	in, reg := newInstrumenter(t)
	g := telemetrytest.BusyGuards()
	for _, observe := range []observe{
		func() (*prombackoff.Registration, error) { return in.Observe("payments", g.Breaker) },
		func() (*prombackoff.Registration, error) { return in.Observe("plain", g.Bulkhead) },
		func() (*prombackoff.Registration, error) {
			return in.Observe("prio", g.PriorityBulkhead)
		},
		func() (*prombackoff.Registration, error) { return in.Observe("api", g.Budget) },
		func() (*prombackoff.Registration, error) { return in.Observe("api", g.Throttle) },
		func() (*prombackoff.Registration, error) { return in.Observe("db", g.Limiter) },
		func() (*prombackoff.Registration, error) { return in.ObserveShared("fleet-budget", g.Shared) },
	} {
		if _, err := observe(); err != nil {
			t.Fatal(err)
		}
	}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(guardsExposition)); err != nil {
		t.Error(err)
	}
}

// guardsExposition is what TestObserveExposition scrapes.
const guardsExposition = `# HELP backoff_breaker_calls_total Calls the breaker admitted and recorded, by how it counted them.
# TYPE backoff_breaker_calls_total counter
backoff_breaker_calls_total{name="payments",outcome="failure"} 1
backoff_breaker_calls_total{name="payments",outcome="ignored"} 0
backoff_breaker_calls_total{name="payments",outcome="neutral"} 0
backoff_breaker_calls_total{name="payments",outcome="success"} 0
# HELP backoff_breaker_forced_transitions_total Changes of the breaker's state made by hand: ForceOpen, ForceClosed, Reset.
# TYPE backoff_breaker_forced_transitions_total counter
backoff_breaker_forced_transitions_total{name="payments"} 0
# HELP backoff_breaker_refusals_total Calls the breaker refused.
# TYPE backoff_breaker_refusals_total counter
backoff_breaker_refusals_total{name="payments"} 1
# HELP backoff_breaker_slow_calls_total Calls the breaker recorded as slower than its slow-call duration.
# TYPE backoff_breaker_slow_calls_total counter
backoff_breaker_slow_calls_total{name="payments"} 0
# HELP backoff_breaker_state 1 for the breaker's current state, 0 for the others.
# TYPE backoff_breaker_state gauge
backoff_breaker_state{name="payments",state="closed"} 0
backoff_breaker_state{name="payments",state="forced-closed"} 0
backoff_breaker_state{name="payments",state="forced-open"} 0
backoff_breaker_state{name="payments",state="half-open"} 0
backoff_breaker_state{name="payments",state="open"} 1
# HELP backoff_breaker_transitions_total Changes of the breaker's state.
# TYPE backoff_breaker_transitions_total counter
backoff_breaker_transitions_total{name="payments"} 1
# HELP backoff_budget_refusals_total Retries the budget refused.
# TYPE backoff_budget_refusals_total counter
backoff_budget_refusals_total{name="api"} 0
# HELP backoff_budget_retries_total Retries the budget admitted.
# TYPE backoff_budget_retries_total counter
backoff_budget_retries_total{name="api"} 1
# HELP backoff_bulkhead_cancellations_total Callers turned away because their context was done.
# TYPE backoff_bulkhead_cancellations_total counter
backoff_bulkhead_cancellations_total{name="plain"} 0
backoff_bulkhead_cancellations_total{name="prio"} 0
# HELP backoff_bulkhead_in_flight Calls the bulkhead admitted that have not ended.
# TYPE backoff_bulkhead_in_flight gauge
backoff_bulkhead_in_flight{name="plain"} 1
backoff_bulkhead_in_flight{name="prio"} 2
# HELP backoff_bulkhead_limit The most calls the bulkhead admits at once.
# TYPE backoff_bulkhead_limit gauge
backoff_bulkhead_limit{name="plain"} 1
backoff_bulkhead_limit{name="prio"} 4
# HELP backoff_bulkhead_queued Callers waiting in the bulkhead's queue for a slot.
# TYPE backoff_bulkhead_queued gauge
backoff_bulkhead_queued{name="plain"} 0
# HELP backoff_bulkhead_refusals_total Calls the bulkhead refused as full, by priority (empty for a bulkhead without priorities).
# TYPE backoff_bulkhead_refusals_total counter
backoff_bulkhead_refusals_total{name="plain",priority=""} 0
backoff_bulkhead_refusals_total{name="prio",priority="critical"} 0
backoff_bulkhead_refusals_total{name="prio",priority="low"} 1
backoff_bulkhead_refusals_total{name="prio",priority="standard"} 0
# HELP backoff_limiter_cancellations_total Callers turned away because their context was done.
# TYPE backoff_limiter_cancellations_total counter
backoff_limiter_cancellations_total{name="db"} 0
# HELP backoff_limiter_in_flight Calls the limiter admitted that have not ended.
# TYPE backoff_limiter_in_flight gauge
backoff_limiter_in_flight{name="db"} 1
# HELP backoff_limiter_limit The most calls the limiter admits at once, as it now stands.
# TYPE backoff_limiter_limit gauge
backoff_limiter_limit{name="db"} 1
# HELP backoff_limiter_queued Callers waiting in the limiter's queue.
# TYPE backoff_limiter_queued gauge
backoff_limiter_queued{name="db"} 0
# HELP backoff_limiter_refusals_total Calls the limiter refused, over the limit or shed by their priority, by priority.
# TYPE backoff_limiter_refusals_total counter
backoff_limiter_refusals_total{name="db",priority="critical"} 0
backoff_limiter_refusals_total{name="db",priority="low"} 0
backoff_limiter_refusals_total{name="db",priority="standard"} 1
# HELP backoff_shared_guard_fallbacks_total Turns of the guard from the shared state to its local fallback.
# TYPE backoff_shared_guard_fallbacks_total counter
backoff_shared_guard_fallbacks_total{name="fleet-budget"} 3
# HELP backoff_shared_guard_local 1 while the guard decides on its local fallback, 0 while on the shared state.
# TYPE backoff_shared_guard_local gauge
backoff_shared_guard_local{name="fleet-budget"} 1
# HELP backoff_shared_guard_recoveries_total Returns of the guard from its local fallback to the shared state.
# TYPE backoff_shared_guard_recoveries_total counter
backoff_shared_guard_recoveries_total{name="fleet-budget"} 2
# HELP backoff_throttle_refusals_total Calls the throttle rejected locally.
# TYPE backoff_throttle_refusals_total counter
backoff_throttle_refusals_total{name="api"} 1
# HELP backoff_throttle_rejection_probability The probability, from 0 to 1, that the throttle rejects the next call.
# TYPE backoff_throttle_rejection_probability gauge
backoff_throttle_rejection_probability{name="api"} 0.6666666666666666
`
