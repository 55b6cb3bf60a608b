package chaos

import "github.com/herdsafe/backoff/guard"

var _ guard.Describer = (*Injector)(nil)

// An injector's metrics.
var (
	callsMetric  = &guard.Metric{Name: "chaos.calls", Kind: guard.Counter, Unit: "{call}", Help: "Calls the fault injector was asked to admit."}
	errorsMetric = &guard.Metric{Name: "chaos.injected_errors", Kind: guard.Counter, Unit: "{call}", Help: "Calls the fault injector failed with its injected error."}
	delaysMetric = &guard.Metric{Name: "chaos.injected_delays", Kind: guard.Counter, Unit: "{call}", Help: "Calls the fault injector delayed."}
)

var description = guard.Description{Kind: "chaos", Series: []guard.Series{{Metric: callsMetric}, {Metric: errorsMetric}, {Metric: delaysMetric}}}

// Describe returns what an Injector reports to the telemetry modules, of
// kind "chaos": the calls it was asked to admit, and those it failed and
// delayed. An Injector is no Loader: the faults it injects are no load.
func (in *Injector) Describe() guard.Description { return description }

// ReadMetrics writes the values of Describe's series, read from Stats. It
// allocates nothing.
func (in *Injector) ReadMetrics(v []float64) {
	s := in.Stats()
	v[0], v[1], v[2] = float64(s.Calls), float64(s.InjectedErrors), float64(s.InjectedDelays)
}
