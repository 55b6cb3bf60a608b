package limiter

import (
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
)

var (
	_ guard.Describer = (*Limiter)(nil)
	_ guard.Loader    = (*Limiter)(nil)
)

// priorityLabel is what a limiter's refusals differ by.
var priorityLabel = &guard.Label{Attribute: "limiter.priority", Name: "priority"}

// A limiter's metrics.
var (
	limitMetric         = &guard.Metric{Name: "limiter.limit", Kind: guard.Level, Unit: "{call}", Help: "The most calls the limiter admits at once, as it now stands."}
	inFlightMetric      = &guard.Metric{Name: "limiter.in_flight", Kind: guard.Level, Unit: "{call}", Help: "Calls the limiter admitted that have not ended."}
	queuedMetric        = &guard.Metric{Name: "limiter.queued", Kind: guard.Level, Unit: "{call}", Help: "Callers waiting in the limiter's queue."}
	refusalsMetric      = &guard.Metric{Name: "limiter.refusals", Kind: guard.Counter, Unit: "{call}", Help: "Calls the limiter refused, over the limit or shed by their priority, by priority.", Label: priorityLabel}
	cancellationsMetric = &guard.Metric{Name: "limiter.cancellations", Kind: guard.Counter, Unit: "{call}", Help: "Callers turned away because their context was done."}
)

var description = guard.Description{Kind: "limiter", Series: []guard.Series{
	{Metric: limitMetric}, {Metric: inFlightMetric}, {Metric: queuedMetric},
	{Metric: refusalsMetric, Value: bulkhead.Low.String()},
	{Metric: refusalsMetric, Value: bulkhead.Standard.String()},
	{Metric: refusalsMetric, Value: bulkhead.Critical.String()},
	{Metric: cancellationsMetric},
}}

// Describe returns what a limiter reports to the telemetry modules, of
// kind "limiter": its current limit, its calls in flight and queued, its
// refusals by priority (every refusal is standard for a Limiter that reads
// no priority) and its cancellations.
func (l *Limiter) Describe() guard.Description { return description }

// ReadMetrics writes the values of Describe's series, read from Stats. It
// allocates nothing.
func (l *Limiter) ReadMetrics(v []float64) {
	s := l.Stats()
	v[0], v[1], v[2] = float64(s.Limit), float64(s.InFlight), float64(s.Queued)
	v[3], v[4], v[5], v[6] = float64(s.RefusedLow), float64(s.RefusedStandard), float64(s.RefusedCritical), float64(s.Canceled)
}

// Load returns the limiter's load for package pushback, read from Stats:
// its calls in flight and queued against its current limit; it queues
// callers, and its refusal for its load matches ErrLimitExceeded. A nil
// *Limiter tells nothing.
func (l *Limiter) Load() guard.Load {
	if l == nil {
		return guard.Load{}
	}
	s := l.Stats()
	return guard.Load{InFlight: s.InFlight, Queued: s.Queued, Capacity: s.Limit, Queues: true, Full: ErrLimitExceeded}
}
