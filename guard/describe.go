package guard

// What a guard says of itself to what observes it, read on demand and
// never on a call's way: its metrics (Describer), for the telemetry
// modules, and its load (Loader), for the servers that tell their clients
// how long to stay away (package pushback) and shed retries under
// pressure. Whatever observes guards reads these two interfaces, and
// names no guard: a guard of your own that implements them is observed as
// the repository's own are.

// Describer is a guard that describes its metrics: the telemetry modules
// (otelbackoff's and prombackoff's Observe) turn its Description into
// instruments once, and read it with ReadMetrics when the metrics are
// collected. Every guard of this repository is a Describer.
//
// Describing costs the guard's calls nothing: Describe is called when the
// guard is observed, and ReadMetrics at each collection, on the
// collecting goroutine.
type Describer interface {
	// Describe returns what the guard reports: its kind and the series of
	// its metrics. It returns the same Description at each call, and the
	// caller must not change it. A nil guard, typed or not, is not
	// observed: Describe is not called on it. A panic in it goes on to
	// the caller of Observe.
	Describe() Description
	// ReadMetrics writes the value now of each series of the
	// Description, values[i] that of Series[i], to values, which is as
	// long as Series. It must be safe for concurrent use with the guard's
	// calls, must not block on them, and should allocate nothing. A panic
	// in it goes on to the collector.
	ReadMetrics(values []float64)
}

// Description is what a guard reports of itself.
type Description struct {
	// Kind names the kind of guard, such as "breaker": a name is taken
	// by one guard of each kind, so that two guards of one kind do not
	// report the same series.
	Kind string
	// Series are the series the guard reports, in the order ReadMetrics
	// writes their values. Two guards of different kinds that report the
	// same metric (a bulkhead and a priority bulkhead) give the same
	// *Metric.
	Series []Series
}

// Series is one series of a guard's metric: the metric and its label's
// value, "" for none (a Prometheus label with an empty value, no
// OpenTelemetry attribute).
type Series struct {
	Metric *Metric
	Value  string
}

// Metric is one metric of a guard.
type Metric struct {
	// Name is the metric's name after the exporter's prefix, its parts
	// joined by dots: "breaker.state" is backoff.breaker.state in
	// OpenTelemetry and backoff_breaker_state in Prometheus (a Counter
	// gets _total there).
	Name  string
	Kind  MetricKind
	Unit  string // OpenTelemetry's unit, such as "{call}"
	Help  string // the description
	Label *Label // what the series differ by; nil for one series
	Float bool   // a value with a fraction, such as a probability
}

// MetricKind is how a guard's metric is reported.
type MetricKind uint8

const (
	// Counter is a count since the guard was made: an observable
	// counter, a Prometheus counter (named with _total).
	Counter MetricKind = iota
	// Level is a number that goes up and down, such as the calls in
	// flight: an observable up-down counter, a Prometheus gauge.
	Level
	// Gauge is a value read as it is, such as a state or a probability:
	// an observable gauge, a Prometheus gauge.
	Gauge
)

// Label is what the series of a metric differ by, named as each exporter
// names it.
type Label struct {
	Attribute string // OpenTelemetry's attribute key, such as "breaker.state"
	Name      string // the Prometheus label, such as "state"
}

// Loader is a guard whose state tells how close it is to refusing calls:
// package pushback reads it to lengthen the wait a server asks of the
// clients the guard refused, and to refuse retries under pressure. A
// guard that is not a Loader is taken as one whose state tells nothing:
// the zero Load.
type Loader interface {
	// Load returns the guard's load now. It must be safe for concurrent
	// use, must not block, and should allocate nothing: a server reads
	// it for requests it refuses, and for the retries it is asked to
	// admit. A nil guard of a pointer type returns the zero Load.
	Load() Load
}

// Load is how close a guard is to refusing calls, read at one instant.
// The zero Load tells nothing.
type Load struct {
	// InFlight and Queued are the calls the guard admitted that have not
	// ended and the callers waiting for a place, of a guard that admits
	// at most Capacity calls at once (a bulkhead, an adaptive limiter's
	// current limit). A Capacity of 0 or less counts no calls.
	InFlight, Queued, Capacity int
	// Rejection is the probability, from 0 to 1, that the guard rejects
	// the next call for its load (an adaptive throttle's).
	Rejection float64
	// Refusing is true while the guard refuses calls whatever their
	// number, for a state that no load changes: a breaker that is not
	// closed.
	Refusing bool
	// Queues is true for a guard that can make a caller wait for a
	// place, whatever its queue holds now.
	Queues bool
	// Full is the error the guard refuses a call with for its load, as
	// errors.Is matches it (bulkhead.ErrBulkheadFull): a refusal that
	// matches it asks a client to stay away in proportion to the load; any
	// other says nothing of it. Nil for a guard whose refusals name their
	// own wait, or none.
	Full error
}
