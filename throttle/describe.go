package throttle

import "github.com/herdsafe/backoff/guard"

var (
	_ guard.Describer = (*Throttle)(nil)
	_ guard.Loader    = (*Throttle)(nil)
)

// A throttle's metrics.
var (
	refusalsMetric    = &guard.Metric{Name: "throttle.refusals", Kind: guard.Counter, Unit: "{call}", Help: "Calls the throttle rejected locally."}
	probabilityMetric = &guard.Metric{Name: "throttle.rejection_probability", Kind: guard.Gauge, Unit: "1", Help: "The probability, from 0 to 1, that the throttle rejects the next call.", Float: true}
)

var description = guard.Description{Kind: "throttle", Series: []guard.Series{{Metric: refusalsMetric}, {Metric: probabilityMetric}}}

// Describe returns what a throttle reports to the telemetry modules, of
// kind "throttle": the calls it rejected, and the probability that it
// rejects the next.
func (t *Throttle) Describe() guard.Description { return description }

// ReadMetrics writes the values of Describe's series, read from Stats,
// which reads its clock. It allocates nothing.
func (t *Throttle) ReadMetrics(v []float64) {
	s := t.Stats()
	v[0], v[1] = float64(s.Rejected), s.Probability
}

// Load returns the throttle's load for package pushback, read from Stats:
// the probability that it rejects the next call; its refusal for its load
// matches ErrThrottled. A nil *Throttle tells nothing.
func (t *Throttle) Load() guard.Load {
	if t == nil {
		return guard.Load{}
	}
	return guard.Load{Rejection: t.Stats().Probability, Full: ErrThrottled}
}
