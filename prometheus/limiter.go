package prombackoff

import (
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/limiter"
	"github.com/prometheus/client_golang/prometheus"
)

// ObserveLimiter registers a collector of l under the name label name,
// read from l.Stats at each scrape: limiter_limit (its current limit),
// limiter_in_flight, limiter_queued, limiter_refusals_total by priority
// (low, standard, critical; every refusal is standard for a Limiter that
// reads no priority) and limiter_cancellations_total.
//
// A nil l, an empty name, or a name another limiter is registered under
// in the same namespace is reported as ErrInvalidConfiguration. Call the
// function returned to unregister the collector.
func (in *Instrumenter) ObserveLimiter(name string, l *limiter.Limiter) (unregister func() bool, err error) {
	return in.observe("ObserveLimiter", name, l == nil, func(d *descs) func(chan<- prometheus.Metric) {
		limit := d.desc("limiter_limit", "The most calls the limiter admits at once, as it now stands.")
		inFlight := d.desc("limiter_in_flight", "Calls the limiter admitted that have not ended.")
		queued := d.desc("limiter_queued", "Callers waiting in the limiter's queue.")
		refusals := d.desc("limiter_refusals_total", "Calls the limiter refused, over the limit or shed by their priority, by priority.", labelPriority)
		cancellations := d.desc("limiter_cancellations_total", "Callers turned away because their context was done.")
		return func(ch chan<- prometheus.Metric) {
			s := l.Stats()
			ch <- gauge(limit, float64(s.Limit))
			ch <- gauge(inFlight, float64(s.InFlight))
			ch <- gauge(queued, float64(s.Queued))
			ch <- counter(refusals, s.RefusedLow, bulkhead.Low.String())
			ch <- counter(refusals, s.RefusedStandard, bulkhead.Standard.String())
			ch <- counter(refusals, s.RefusedCritical, bulkhead.Critical.String())
			ch <- counter(cancellations, s.Canceled)
		}
	})
}
