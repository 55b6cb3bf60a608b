package prombackoff

import (
	"github.com/herdsafe/backoff/budget"
	"github.com/prometheus/client_golang/prometheus"
)

// ObserveBudget registers a collector of b under the name label name,
// read from b.Stats at each scrape: budget_retries_total (the retries it
// admitted) and budget_refusals_total (those it refused). A ratio budget
// reads its clock.
//
// A nil b, an empty name, or a name another budget is registered under in
// the same namespace is reported as ErrInvalidConfiguration. Call the
// function returned to unregister the collector.
func (in *Instrumenter) ObserveBudget(name string, b *budget.Budget) (unregister func() bool, err error) {
	return in.observe("ObserveBudget", name, b == nil, func(d *descs) func(chan<- prometheus.Metric) {
		retries := d.desc("budget_retries_total", "Retries the budget admitted.")
		refusals := d.desc("budget_refusals_total", "Retries the budget refused.")
		return func(ch chan<- prometheus.Metric) {
			s := b.Stats()
			ch <- counter(retries, s.Allowed)
			ch <- counter(refusals, s.Refused)
		}
	})
}
