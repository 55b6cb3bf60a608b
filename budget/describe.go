package budget

import "github.com/herdsafe/backoff/guard"

var _ guard.Describer = (*Budget)(nil)

// A budget's metrics.
var (
	retriesMetric  = &guard.Metric{Name: "budget.retries", Kind: guard.Counter, Unit: "{retry}", Help: "Retries the budget admitted."}
	refusalsMetric = &guard.Metric{Name: "budget.refusals", Kind: guard.Counter, Unit: "{retry}", Help: "Retries the budget refused."}
)

var description = guard.Description{Kind: "budget", Series: []guard.Series{{Metric: retriesMetric}, {Metric: refusalsMetric}}}

// Describe returns what a budget of any kind (token bucket, ratio, in
// flight) reports to the telemetry modules, of kind "budget": the retries
// it admitted and refused. It reads nothing of b, which may be nil, so
// that a guard that keeps a budget elsewhere can report as a Budget does.
// A budget is no Loader: its refusals say nothing of the server's load.
func (b *Budget) Describe() guard.Description { return description }

// ReadMetrics writes the values of Describe's series, read from Stats (a
// ratio budget reads its clock). It allocates nothing.
func (b *Budget) ReadMetrics(v []float64) {
	s := b.Stats()
	v[0], v[1] = float64(s.Allowed), float64(s.Refused)
}
