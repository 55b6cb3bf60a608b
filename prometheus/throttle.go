package prombackoff

import (
	"github.com/herdsafe/backoff/throttle"
	"github.com/prometheus/client_golang/prometheus"
)

// ObserveThrottle registers a collector of t under the name label name,
// read from t.Stats at each scrape: throttle_refusals_total (the calls it
// rejected locally) and throttle_rejection_probability (the probability,
// from 0 to 1, that it rejects the next call). It reads t's clock.
//
// A nil t, an empty name, or a name another throttle is registered under
// in the same namespace is reported as ErrInvalidConfiguration. Call the
// function returned to unregister the collector.
func (in *Instrumenter) ObserveThrottle(name string, t *throttle.Throttle) (unregister func() bool, err error) {
	return in.observe("ObserveThrottle", name, t == nil, func(d *descs) func(chan<- prometheus.Metric) {
		refusals := d.desc("throttle_refusals_total", "Calls the throttle rejected locally.")
		probability := d.desc("throttle_rejection_probability", "The probability, from 0 to 1, that the throttle rejects the next call.")
		return func(ch chan<- prometheus.Metric) {
			s := t.Stats()
			ch <- counter(refusals, s.Rejected)
			ch <- gauge(probability, s.Probability)
		}
	})
}
