package breaker

import "github.com/herdsafe/backoff/guard"

var (
	_ guard.Describer = (*Breaker)(nil)
	_ guard.Loader    = (*Breaker)(nil)
)

// The labels of a breaker's metrics.
var (
	stateLabel   = &guard.Label{Attribute: "breaker.state", Name: "state"}
	outcomeLabel = &guard.Label{Attribute: "breaker.outcome", Name: "outcome"}
)

// A breaker's metrics.
var (
	stateMetric       = &guard.Metric{Name: "breaker.state", Kind: guard.Gauge, Unit: "1", Help: "1 for the breaker's current state, 0 for the others.", Label: stateLabel}
	transitionsMetric = &guard.Metric{Name: "breaker.transitions", Kind: guard.Counter, Unit: "{transition}", Help: "Changes of the breaker's state."}
	forcedMetric      = &guard.Metric{Name: "breaker.forced_transitions", Kind: guard.Counter, Unit: "{transition}", Help: "Changes of the breaker's state made by hand: ForceOpen, ForceClosed, Reset."}
	refusalsMetric    = &guard.Metric{Name: "breaker.refusals", Kind: guard.Counter, Unit: "{call}", Help: "Calls the breaker refused."}
	callsMetric       = &guard.Metric{Name: "breaker.calls", Kind: guard.Counter, Unit: "{call}", Help: "Calls the breaker admitted and recorded, by how it counted them.", Label: outcomeLabel}
	slowMetric        = &guard.Metric{Name: "breaker.slow_calls", Kind: guard.Counter, Unit: "{call}", Help: "Calls the breaker recorded as slower than its slow-call duration."}
)

// reportedStates are the states breaker.state reports, in its series'
// order.
var reportedStates = [...]State{Closed, Open, HalfOpen, ForcedOpen, ForcedClosed}

// description is what every Breaker reports.
var description = guard.Description{Kind: "breaker", Series: []guard.Series{
	{Metric: stateMetric, Value: Closed.String()},
	{Metric: stateMetric, Value: Open.String()},
	{Metric: stateMetric, Value: HalfOpen.String()},
	{Metric: stateMetric, Value: ForcedOpen.String()},
	{Metric: stateMetric, Value: ForcedClosed.String()},
	{Metric: transitionsMetric},
	{Metric: forcedMetric},
	{Metric: refusalsMetric},
	{Metric: callsMetric, Value: "success"},
	{Metric: callsMetric, Value: "failure"},
	{Metric: callsMetric, Value: "neutral"},
	{Metric: callsMetric, Value: "ignored"},
	{Metric: slowMetric},
}}

// Describe returns what a breaker reports to the telemetry modules, of
// kind "breaker": its state (a series for each, 1 for the current one,
// those ForceOpen and ForceClosed set included), its changes of state and
// those made by hand, its refusals, its calls by how it counted them
// (success, failure, neutral, ignored), and the slow ones. It reads
// nothing of b, which may be nil: every Breaker describes the same
// metrics, so that a guard that keeps a breaker's state elsewhere can
// report them as a Breaker does.
func (b *Breaker) Describe() guard.Description { return description }

// ReadMetrics writes the values of Describe's series, read from State and
// Counts. Reading the state may move an open breaker whose open duration
// has passed to half-open, and so run its WithStateChange hook on the
// calling goroutine. It allocates nothing.
func (b *Breaker) ReadMetrics(v []float64) {
	s := b.State()
	WriteMetrics(v, s, b.Counts())
}

// WriteMetrics writes to v, as long as the Series of a Breaker's
// Describe, the values of those series for a breaker in the state s with
// the counts c, as ReadMetrics does: so that a guard that keeps a
// breaker's state elsewhere (a shared breaker) reports it as a Breaker
// does. It allocates nothing.
func WriteMetrics(v []float64, s State, c Counts) {
	for i, st := range reportedStates {
		v[i] = one(s == st)
	}
	v = v[len(reportedStates):]
	v[0], v[1], v[2] = float64(c.Transitions), float64(c.Forced), float64(c.Rejections)
	v[3], v[4], v[5], v[6] = float64(c.Successes), float64(c.Failures), float64(c.Neutral), float64(c.Ignored)
	v[7] = float64(c.Slow)
}

// Load returns the breaker's load for package pushback: Refusing while it
// is not closed (nor forced closed). A breaker's refusal names its own
// wait (an *OpenError), so no refusal is Full. A nil *Breaker tells
// nothing. Reading the state is State's.
func (b *Breaker) Load() guard.Load {
	if b == nil {
		return guard.Load{}
	}
	return LoadOf(b.State())
}

// LoadOf returns the load of a breaker in the state s, as Load does:
// Refusing unless s is Closed or ForcedClosed. A guard that keeps a
// breaker's state elsewhere (a shared breaker) reports its load so.
func LoadOf(s State) guard.Load {
	return guard.Load{Refusing: s != Closed && s != ForcedClosed}
}

// one returns 1 if ok, else 0.
func one(ok bool) float64 {
	if ok {
		return 1
	}
	return 0
}
