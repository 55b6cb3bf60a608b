package prombackoff

import (
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/prometheus/client_golang/prometheus"
)

// ObserveBulkhead registers a collector of b under the name label name,
// read from b.Stats at each scrape: bulkhead_in_flight,
// bulkhead_queued, bulkhead_limit (its capacity),
// bulkhead_refusals_total (with an empty priority label: a Bulkhead has no
// priorities) and bulkhead_cancellations_total.
//
// A nil b, an empty name, or a name another bulkhead is registered under
// in the same namespace is reported as ErrInvalidConfiguration. Call the
// function returned to unregister the collector.
func (in *Instrumenter) ObserveBulkhead(name string, b *bulkhead.Bulkhead) (unregister func() bool, err error) {
	return in.observe("ObserveBulkhead", name, b == nil, func(d *descs) func(chan<- prometheus.Metric) {
		inFlight, limit := bulkheadLevels(d)
		queued := d.desc("bulkhead_queued", "Callers waiting in the bulkhead's queue for a slot.")
		refusals, cancellations := bulkheadRefusals(d), bulkheadCancellations(d)
		return func(ch chan<- prometheus.Metric) {
			s := b.Stats()
			ch <- gauge(inFlight, float64(s.InFlight))
			ch <- gauge(queued, float64(s.Queued))
			ch <- gauge(limit, float64(s.Capacity))
			ch <- counter(refusals, s.Refused, "")
			ch <- counter(cancellations, s.Canceled)
		}
	})
}

// ObservePriorityBulkhead registers a collector of b under the name label
// name, read from b.Stats at each scrape: bulkhead_in_flight,
// bulkhead_limit (its capacity), bulkhead_refusals_total by priority
// (low, standard, critical) and bulkhead_cancellations_total. It has no
// queue, so no bulkhead_queued.
//
// A nil b, an empty name, or a name another bulkhead is registered under
// in the same namespace is reported as ErrInvalidConfiguration. Call the
// function returned to unregister the collector.
func (in *Instrumenter) ObservePriorityBulkhead(name string, b *bulkhead.PriorityBulkhead) (unregister func() bool, err error) {
	return in.observe("ObservePriorityBulkhead", name, b == nil, func(d *descs) func(chan<- prometheus.Metric) {
		inFlight, limit := bulkheadLevels(d)
		refusals, cancellations := bulkheadRefusals(d), bulkheadCancellations(d)
		return func(ch chan<- prometheus.Metric) {
			s := b.Stats()
			ch <- gauge(inFlight, float64(s.InFlight))
			ch <- gauge(limit, float64(s.Capacity))
			ch <- counter(refusals, s.RefusedLow, bulkhead.Low.String())
			ch <- counter(refusals, s.RefusedStandard, bulkhead.Standard.String())
			ch <- counter(refusals, s.RefusedCritical, bulkhead.Critical.String())
			ch <- counter(cancellations, s.Canceled)
		}
	})
}

// bulkheadLevels describes the levels both kinds of bulkhead have.
func bulkheadLevels(d *descs) (inFlight, limit *prometheus.Desc) {
	inFlight = d.desc("bulkhead_in_flight", "Calls the bulkhead admitted that have not ended.")
	limit = d.desc("bulkhead_limit", "The most calls the bulkhead admits at once.")
	return inFlight, limit
}

// bulkheadRefusals describes the refusals of both kinds of bulkhead, with
// one set of labels, so that both kinds can be observed on one registry.
func bulkheadRefusals(d *descs) *prometheus.Desc {
	return d.desc("bulkhead_refusals_total", "Calls the bulkhead refused as full, by priority (empty for a bulkhead without priorities).", labelPriority)
}

func bulkheadCancellations(d *descs) *prometheus.Desc {
	return d.desc("bulkhead_cancellations_total", "Callers turned away because their context was done.")
}
