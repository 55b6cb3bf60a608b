package prombackoff

import (
	"github.com/herdsafe/backoff/breaker"
	"github.com/prometheus/client_golang/prometheus"
)

var breakerStates = [...]breaker.State{breaker.Closed, breaker.Open, breaker.HalfOpen, breaker.ForcedOpen, breaker.ForcedClosed}

// ObserveBreaker registers a collector of b under the name label name,
// read from b.State and b.Counts at each scrape: breaker_state (1 for the
// current state, 0 for the others, by state: closed, open, half-open, and
// the forced-open and forced-closed of ForceOpen and ForceClosed),
// breaker_transitions_total, breaker_forced_transitions_total (the changes
// made by ForceOpen, ForceClosed and Reset), breaker_refusals_total,
// breaker_calls_total by how b recorded them (outcome success, failure,
// neutral or ignored), and breaker_slow_calls_total (those slower than
// WithSlowCalls' duration). Reading the state may
// move an open breaker whose open duration has passed to half-open, and
// so run its WithStateChange hook on the scraping goroutine.
//
// A nil b, an empty name, or a name another breaker is registered under in
// the same namespace is reported as ErrInvalidConfiguration. Call the
// function returned to unregister the collector.
func (in *Instrumenter) ObserveBreaker(name string, b *breaker.Breaker) (unregister func() bool, err error) {
	return in.observe("ObserveBreaker", name, b == nil, func(d *descs) func(chan<- prometheus.Metric) {
		state := d.desc("breaker_state", "1 for the breaker's current state, 0 for the others.", labelState)
		transitions := d.desc("breaker_transitions_total", "Changes of the breaker's state.")
		forced := d.desc("breaker_forced_transitions_total", "Changes of the breaker's state made by hand: ForceOpen, ForceClosed, Reset.")
		refusals := d.desc("breaker_refusals_total", "Calls the breaker refused.")
		calls := d.desc("breaker_calls_total", "Calls the breaker admitted and recorded, by how it counted them.", labelOutcome)
		slow := d.desc("breaker_slow_calls_total", "Calls the breaker recorded as slower than its slow-call duration.")
		return func(ch chan<- prometheus.Metric) {
			cur := b.State()
			for _, st := range breakerStates {
				v := 0.0
				if st == cur {
					v = 1
				}
				ch <- gauge(state, v, st.String())
			}
			c := b.Counts()
			ch <- counter(transitions, c.Transitions)
			ch <- counter(forced, c.Forced)
			ch <- counter(refusals, c.Rejections)
			ch <- counter(slow, c.Slow)
			ch <- counter(calls, c.Successes, "success")
			ch <- counter(calls, c.Failures, "failure")
			ch <- counter(calls, c.Neutral, "neutral")
			ch <- counter(calls, c.Ignored, "ignored")
		}
	})
}
