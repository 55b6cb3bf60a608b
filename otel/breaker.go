package otelbackoff

import (
	"context"

	"github.com/herdsafe/backoff/breaker"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

var breakerStates = [...]breaker.State{breaker.Closed, breaker.Open, breaker.HalfOpen, breaker.ForcedOpen, breaker.ForcedClosed}

// ObserveBreaker reports b's state and counts under the guard.name name,
// read from b.State and b.Counts when the metrics are collected:
// backoff.breaker.state (1 for the current state, 0 for the others; the
// states ForceOpen and ForceClosed set are "forced-open" and
// "forced-closed"), backoff.breaker.transitions,
// backoff.breaker.forced_transitions (the changes made by ForceOpen,
// ForceClosed and Reset), backoff.breaker.refusals,
// backoff.breaker.calls by how b recorded them, and
// backoff.breaker.slow_calls (those slower than WithSlowCalls' duration). Reading the state may move
// an open breaker whose open duration has passed to half-open, and so run
// its WithStateChange hook on the collecting goroutine.
//
// A nil b, an empty name, or a name another breaker is observed under by
// this Instrumenter is reported as ErrInvalidConfiguration. Unregister the
// result to stop; the name may then be observed again.
func (in *Instrumenter) ObserveBreaker(name string, b *breaker.Breaker) (metric.Registration, error) {
	return in.observe("ObserveBreaker", name, b == nil, func(guard attribute.KeyValue) (metric.Callback, []metric.Observable, error) {
		is := instruments{m: in.meter}
		state := is.gauge(breakerStateName, "1", "1 for the breaker's current state, 0 for the others.")
		transitions := is.counter(breakerTransitionsName, "{transition}", "Changes of the breaker's state.")
		forced := is.counter(breakerForcedName, "{transition}", "Changes of the breaker's state made by hand: ForceOpen, ForceClosed, Reset.")
		refusals := is.counter(breakerRefusalsName, "{call}", "Calls the breaker refused.")
		calls := is.counter(breakerCallsName, "{call}", "Calls the breaker admitted and recorded, by how it counted them.")
		slow := is.counter(breakerSlowName, "{call}", "Calls the breaker recorded as slower than its slow-call duration.")
		var states [len(breakerStates)]metric.ObserveOption
		for i, st := range breakerStates {
			states[i] = set(guard, BreakerStateKey.String(st.String()))
		}
		own := set(guard)
		successes := set(guard, BreakerOutcomeKey.String("success"))
		failures := set(guard, BreakerOutcomeKey.String("failure"))
		neutral := set(guard, BreakerOutcomeKey.String("neutral"))
		ignored := set(guard, BreakerOutcomeKey.String("ignored"))
		cb := func(_ context.Context, o metric.Observer) error {
			cur := b.State()
			for i, st := range breakerStates {
				v := int64(0)
				if st == cur {
					v = 1
				}
				o.ObserveInt64(state, v, states[i])
			}
			c := b.Counts()
			o.ObserveInt64(transitions, count(c.Transitions), own)
			o.ObserveInt64(forced, count(c.Forced), own)
			o.ObserveInt64(refusals, count(c.Rejections), own)
			o.ObserveInt64(slow, count(c.Slow), own)
			o.ObserveInt64(calls, count(c.Successes), successes)
			o.ObserveInt64(calls, count(c.Failures), failures)
			o.ObserveInt64(calls, count(c.Neutral), neutral)
			o.ObserveInt64(calls, count(c.Ignored), ignored)
			return nil
		}
		return cb, is.all, is.err()
	})
}
