package bulkhead

import "github.com/herdsafe/backoff/guard"

var (
	_ guard.Describer = (*Bulkhead)(nil)
	_ guard.Loader    = (*Bulkhead)(nil)
	_ guard.Describer = (*PriorityBulkhead)(nil)
	_ guard.Loader    = (*PriorityBulkhead)(nil)
)

// priorityLabel is what a bulkhead's refusals differ by.
var priorityLabel = &guard.Label{Attribute: "bulkhead.priority", Name: "priority"}

// The metrics of both bulkheads.
var (
	inFlightMetric      = &guard.Metric{Name: "bulkhead.in_flight", Kind: guard.Level, Unit: "{call}", Help: "Calls the bulkhead admitted that have not ended."}
	queuedMetric        = &guard.Metric{Name: "bulkhead.queued", Kind: guard.Level, Unit: "{call}", Help: "Callers waiting in the bulkhead's queue for a slot."}
	limitMetric         = &guard.Metric{Name: "bulkhead.limit", Kind: guard.Level, Unit: "{call}", Help: "The most calls the bulkhead admits at once."}
	refusalsMetric      = &guard.Metric{Name: "bulkhead.refusals", Kind: guard.Counter, Unit: "{call}", Help: "Calls the bulkhead refused as full, by priority (empty for a bulkhead without priorities).", Label: priorityLabel}
	cancellationsMetric = &guard.Metric{Name: "bulkhead.cancellations", Kind: guard.Counter, Unit: "{call}", Help: "Callers turned away because their context was done."}
)

var description = guard.Description{Kind: "bulkhead", Series: []guard.Series{
	{Metric: inFlightMetric}, {Metric: queuedMetric}, {Metric: limitMetric},
	{Metric: refusalsMetric}, {Metric: cancellationsMetric},
}}

// Describe returns what a bulkhead reports to the telemetry modules, of
// kind "bulkhead": its calls in flight and queued, its capacity, its
// refusals (with an empty priority) and its cancellations.
func (b *Bulkhead) Describe() guard.Description { return description }

// ReadMetrics writes the values of Describe's series, read from Stats. It
// allocates nothing.
func (b *Bulkhead) ReadMetrics(v []float64) {
	s := b.Stats()
	v[0], v[1], v[2], v[3], v[4] = float64(s.InFlight), float64(s.Queued), float64(s.Capacity), float64(s.Refused), float64(s.Canceled)
}

// Load returns the bulkhead's load for package pushback, read from Stats:
// its calls in flight and queued against its capacity; it queues callers,
// and its refusal for its load matches ErrBulkheadFull. A nil *Bulkhead
// tells nothing.
func (b *Bulkhead) Load() guard.Load {
	if b == nil {
		return guard.Load{}
	}
	s := b.Stats()
	return guard.Load{InFlight: s.InFlight, Queued: s.Queued, Capacity: s.Capacity, Queues: true, Full: ErrBulkheadFull}
}

var priorityDescription = guard.Description{Kind: "priority_bulkhead", Series: []guard.Series{
	{Metric: inFlightMetric}, {Metric: limitMetric},
	{Metric: refusalsMetric, Value: Low.String()},
	{Metric: refusalsMetric, Value: Standard.String()},
	{Metric: refusalsMetric, Value: Critical.String()},
	{Metric: cancellationsMetric},
}}

// Describe returns what a priority bulkhead reports to the telemetry
// modules, of kind "priority_bulkhead": the metrics of a Bulkhead, its
// refusals by priority, and no queue.
func (b *PriorityBulkhead) Describe() guard.Description { return priorityDescription }

// ReadMetrics writes the values of Describe's series, read from Stats. It
// allocates nothing.
func (b *PriorityBulkhead) ReadMetrics(v []float64) {
	s := b.Stats()
	v[0], v[1] = float64(s.InFlight), float64(s.Capacity)
	v[2], v[3], v[4], v[5] = float64(s.RefusedLow), float64(s.RefusedStandard), float64(s.RefusedCritical), float64(s.Canceled)
}

// Load returns the bulkhead's load for package pushback, read from Stats:
// its calls in flight against its capacity; its refusal for its load, a
// ShedError, matches ErrBulkheadFull. It queues nobody. A nil
// *PriorityBulkhead tells nothing.
func (b *PriorityBulkhead) Load() guard.Load {
	if b == nil {
		return guard.Load{}
	}
	s := b.Stats()
	return guard.Load{InFlight: s.InFlight, Capacity: s.Capacity, Full: ErrBulkheadFull}
}
