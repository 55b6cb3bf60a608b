package telemetry

import (
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/internal/typednil"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/pushback"
	"github.com/herdsafe/backoff/throttle"
)

// The Observe methods of otelbackoff and prombackoff report a guard's
// figures, read when the metrics are collected, under the guard's name:
// the same metrics, read the same way, which this file describes once. An
// exporter turns each Metric into an instrument (otelbackoff) or a
// description (prombackoff), and each Series into a measurement.

// Kind is how a guard's metric is reported.
type Kind uint8

const (
	// Counter is a count since the guard was made: an observable counter,
	// a Prometheus counter (named with _total).
	Counter Kind = iota
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

// The labels of the guards' metrics.
var (
	StateLabel    = &Label{Attribute: "breaker.state", Name: "state"}
	OutcomeLabel  = &Label{Attribute: "breaker.outcome", Name: "outcome"}
	PriorityLabel = &Label{Attribute: "bulkhead.priority", Name: "priority"}
	// LimiterPriorityLabel is the priority of the calls an adaptive
	// concurrency limiter refused.
	LimiterPriorityLabel = &Label{Attribute: "limiter.priority", Name: "priority"}
)

// Metric is one metric of a guard.
type Metric struct {
	// Name is the metric's name after the exporter's prefix, its parts
	// joined by dots: "breaker.state" is backoff.breaker.state in
	// OpenTelemetry and backoff_breaker_state in Prometheus (a Counter
	// gets _total there).
	Name  string
	Kind  Kind
	Unit  string // OpenTelemetry's unit, such as "{call}"
	Help  string // the description
	Label *Label // what the series differ by; nil for one series
	Float bool   // a value with a fraction, such as a probability
}

// Series is one series of a guard's metric: the metric and its label's
// value, "" for none (a Prometheus label with an empty value, no
// attribute in OpenTelemetry).
type Series struct {
	Metric *Metric
	Value  string
}

// Observed is a guard as an Observe method reports it.
type Observed struct {
	Method string   // the method that observes it, such as "ObserveBreaker"
	Series []Series // what it reports
	// Read, nil for a nil guard, reads the guard: it writes the value of
	// Series[i] to values[i], for a values as long as Series.
	Read func(values []float64)
}

// Check reports what makes an observation of o under name impossible, in
// the words of settings: a nil guard, an empty name, or both.
func (o Observed) Check(settings setting.Package, name string) error {
	var nilGuard, noName error
	if o.Read == nil {
		nilGuard = settings.Invalid("%s was given a nil guard", o.Method)
	}
	switch {
	case name == "":
		noName = settings.Invalid("%s was given an empty name", o.Method)
	case !utf8.ValidString(name):
		noName = settings.Invalid("%s was given the name %q, which is not valid UTF-8, as a label value must be", o.Method, name)
	}
	return setting.Join(nilGuard, noName)
}

// Metrics returns the metrics of o's series, each once, in the order of
// its series.
func (o Observed) Metrics() []*Metric {
	var ms []*Metric
	for _, s := range o.Series {
		if !slices.Contains(ms, s.Metric) {
			ms = append(ms, s.Metric)
		}
	}
	return ms
}

// The guards' metrics.
var (
	breakerState       = &Metric{Name: "breaker.state", Kind: Gauge, Unit: "1", Help: "1 for the breaker's current state, 0 for the others.", Label: StateLabel}
	breakerTransitions = &Metric{Name: "breaker.transitions", Kind: Counter, Unit: "{transition}", Help: "Changes of the breaker's state."}
	breakerForced      = &Metric{Name: "breaker.forced_transitions", Kind: Counter, Unit: "{transition}", Help: "Changes of the breaker's state made by hand: ForceOpen, ForceClosed, Reset."}
	breakerRefusals    = &Metric{Name: "breaker.refusals", Kind: Counter, Unit: "{call}", Help: "Calls the breaker refused."}
	breakerCalls       = &Metric{Name: "breaker.calls", Kind: Counter, Unit: "{call}", Help: "Calls the breaker admitted and recorded, by how it counted them.", Label: OutcomeLabel}
	breakerSlow        = &Metric{Name: "breaker.slow_calls", Kind: Counter, Unit: "{call}", Help: "Calls the breaker recorded as slower than its slow-call duration."}

	bulkheadInFlight      = &Metric{Name: "bulkhead.in_flight", Kind: Level, Unit: "{call}", Help: "Calls the bulkhead admitted that have not ended."}
	bulkheadQueued        = &Metric{Name: "bulkhead.queued", Kind: Level, Unit: "{call}", Help: "Callers waiting in the bulkhead's queue for a slot."}
	bulkheadLimit         = &Metric{Name: "bulkhead.limit", Kind: Level, Unit: "{call}", Help: "The most calls the bulkhead admits at once."}
	bulkheadRefusals      = &Metric{Name: "bulkhead.refusals", Kind: Counter, Unit: "{call}", Help: "Calls the bulkhead refused as full, by priority (empty for a bulkhead without priorities).", Label: PriorityLabel}
	bulkheadCancellations = &Metric{Name: "bulkhead.cancellations", Kind: Counter, Unit: "{call}", Help: "Callers turned away because their context was done."}

	limiterLimit         = &Metric{Name: "limiter.limit", Kind: Level, Unit: "{call}", Help: "The most calls the limiter admits at once, as it now stands."}
	limiterInFlight      = &Metric{Name: "limiter.in_flight", Kind: Level, Unit: "{call}", Help: "Calls the limiter admitted that have not ended."}
	limiterQueued        = &Metric{Name: "limiter.queued", Kind: Level, Unit: "{call}", Help: "Callers waiting in the limiter's queue."}
	limiterRefusals      = &Metric{Name: "limiter.refusals", Kind: Counter, Unit: "{call}", Help: "Calls the limiter refused, over the limit or shed by their priority, by priority.", Label: LimiterPriorityLabel}
	limiterCancellations = &Metric{Name: "limiter.cancellations", Kind: Counter, Unit: "{call}", Help: "Callers turned away because their context was done."}

	budgetRetries  = &Metric{Name: "budget.retries", Kind: Counter, Unit: "{retry}", Help: "Retries the budget admitted."}
	budgetRefusals = &Metric{Name: "budget.refusals", Kind: Counter, Unit: "{retry}", Help: "Retries the budget refused."}

	throttleRefusals    = &Metric{Name: "throttle.refusals", Kind: Counter, Unit: "{call}", Help: "Calls the throttle rejected locally."}
	throttleProbability = &Metric{Name: "throttle.rejection_probability", Kind: Gauge, Unit: "1", Help: "The probability, from 0 to 1, that the throttle rejects the next call.", Float: true}

	shedderRetries    = &Metric{Name: "shedder.retries_refused", Kind: Counter, Unit: "{request}", Help: "Retries the shedder refused under pressure, before its guard, saying do not retry."}
	shedderLate       = &Metric{Name: "shedder.late_refused", Kind: Counter, Unit: "{request}", Help: "Requests the shedder refused because their caller would not wait for its queue."}
	shedderQueueTime  = &Metric{Name: "shedder.queue_time", Kind: Gauge, Unit: "s", Help: "The time requests wait now for the shedder's guard, in seconds.", Float: true}
	rateLimitRate     = &Metric{Name: "ratelimit.rate", Kind: Gauge, Unit: "{call}/s", Help: "The calls a second the rate limiter admits on average.", Float: true}
	rateLimitBurst    = &Metric{Name: "ratelimit.burst", Kind: Level, Unit: "{call}", Help: "The calls the rate limiter admits at once, its bucket's size."}
	rateLimitTokens   = &Metric{Name: "ratelimit.tokens", Kind: Gauge, Unit: "{token}", Help: "The tokens in the rate limiter's bucket: below 1 no call is admitted at once, below 0 waiting calls have reserved tokens to come.", Float: true}
	rateLimitWaiting  = &Metric{Name: "ratelimit.waiting", Kind: Level, Unit: "{call}", Help: "Calls waiting for their token."}
	rateLimitWaited   = &Metric{Name: "ratelimit.waited", Kind: Counter, Unit: "{call}", Help: "Calls the rate limiter admitted after a wait."}
	rateLimitRefusals = &Metric{Name: "ratelimit.refusals", Kind: Counter, Unit: "{call}", Help: "Calls the rate limiter refused for want of a token in time."}

	sharedLocal      = &Metric{Name: "shared_guard.local", Kind: Gauge, Unit: "1", Help: "1 while the guard decides on its local fallback, 0 while on the shared state."}
	sharedFallbacks  = &Metric{Name: "shared_guard.fallbacks", Kind: Counter, Unit: "{fallback}", Help: "Turns of the guard from the shared state to its local fallback."}
	sharedRecoveries = &Metric{Name: "shared_guard.recoveries", Kind: Counter, Unit: "{recovery}", Help: "Returns of the guard from its local fallback to the shared state."}
)

// observed returns the Observed of g, reported by method as series and
// read by read; for a nil g (isNil), one with no Read.
func observed[G any](method string, series []Series, g G, isNil bool, read func(g G, v []float64)) Observed {
	o := Observed{Method: method, Series: series}
	if !isNil {
		o.Read = func(v []float64) { read(g, v) }
	}
	return o
}

// series returns a series of each of ms, with no label value.
func series(ms ...*Metric) []Series {
	out := make([]Series, len(ms))
	for i, m := range ms {
		out[i] = Series{Metric: m}
	}
	return out
}

// by returns the series of m for each of values, its label's.
func by(m *Metric, values ...string) []Series {
	out := make([]Series, len(values))
	for i, v := range values {
		out[i] = Series{Metric: m, Value: v}
	}
	return out
}

// one returns 1 if b, else 0.
func one(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// breakerStates are the states breaker.state reports, in its series'
// order.
var breakerStates = [...]breaker.State{breaker.Closed, breaker.Open, breaker.HalfOpen, breaker.ForcedOpen, breaker.ForcedClosed}

// priorities are the values of a label of priorities, in the order of the
// refusals the readers write: low, standard, critical.
var priorities = []string{bulkhead.Low.String(), bulkhead.Standard.String(), bulkhead.Critical.String()}

var breakerSeries = slices.Concat(
	by(breakerState, breakerStateNames()...),
	series(breakerTransitions, breakerForced, breakerRefusals),
	by(breakerCalls, "success", "failure", "neutral", "ignored"),
	series(breakerSlow),
)

// breakerStateNames returns the names of breakerStates.
func breakerStateNames() []string {
	names := make([]string, len(breakerStates))
	for i, st := range breakerStates {
		names[i] = st.String()
	}
	return names
}

// Breaker is b as ObserveBreaker reports it, read from b.State and
// b.Counts: its state (those ForceOpen and ForceClosed set included), its
// changes of state and those made by hand, its refusals, its calls by how
// it counted them, and the slow ones. Reading the state may move an open
// breaker whose open duration has passed to half-open, and so run its
// WithStateChange hook on the collecting goroutine.
func Breaker(b *breaker.Breaker) Observed {
	return observed("ObserveBreaker", breakerSeries, b, b == nil, func(b *breaker.Breaker, v []float64) {
		s := b.State()
		for i, st := range breakerStates {
			v[i] = one(s == st)
		}
		c := b.Counts()
		copy(v[len(breakerStates):], []float64{float64(c.Transitions), float64(c.Forced), float64(c.Rejections),
			float64(c.Successes), float64(c.Failures), float64(c.Neutral), float64(c.Ignored), float64(c.Slow)})
	})
}

var bulkheadSeries = series(bulkheadInFlight, bulkheadQueued, bulkheadLimit, bulkheadRefusals, bulkheadCancellations)

// Bulkhead is b as ObserveBulkhead reports it, read from b.Stats: its
// refusals with no priority.
func Bulkhead(b *bulkhead.Bulkhead) Observed {
	return observed("ObserveBulkhead", bulkheadSeries, b, b == nil, func(b *bulkhead.Bulkhead, v []float64) {
		s := b.Stats()
		copy(v, []float64{float64(s.InFlight), float64(s.Queued), float64(s.Capacity), float64(s.Refused), float64(s.Canceled)})
	})
}

var priorityBulkheadSeries = slices.Concat(
	series(bulkheadInFlight, bulkheadLimit),
	by(bulkheadRefusals, priorities...),
	series(bulkheadCancellations),
)

// PriorityBulkhead is b as ObservePriorityBulkhead reports it, read from
// b.Stats: its refusals by priority, and no queue.
func PriorityBulkhead(b *bulkhead.PriorityBulkhead) Observed {
	return observed("ObservePriorityBulkhead", priorityBulkheadSeries, b, b == nil, func(b *bulkhead.PriorityBulkhead, v []float64) {
		s := b.Stats()
		copy(v, []float64{float64(s.InFlight), float64(s.Capacity),
			float64(s.RefusedLow), float64(s.RefusedStandard), float64(s.RefusedCritical), float64(s.Canceled)})
	})
}

var limiterSeries = slices.Concat(
	series(limiterLimit, limiterInFlight, limiterQueued),
	by(limiterRefusals, priorities...),
	series(limiterCancellations),
)

// Limiter is l as ObserveLimiter reports it, read from l.Stats: its
// current limit, the calls in flight and queued, its refusals by priority
// (every refusal is standard for a Limiter that reads no priority) and its
// cancellations.
func Limiter(l *limiter.Limiter) Observed {
	return observed("ObserveLimiter", limiterSeries, l, l == nil, func(l *limiter.Limiter, v []float64) {
		s := l.Stats()
		copy(v, []float64{float64(s.Limit), float64(s.InFlight), float64(s.Queued),
			float64(s.RefusedLow), float64(s.RefusedStandard), float64(s.RefusedCritical), float64(s.Canceled)})
	})
}

var budgetSeries = series(budgetRetries, budgetRefusals)

// Budget is b as ObserveBudget reports it, read from b.Stats (a ratio
// budget reads its clock): the retries it admitted and refused.
func Budget(b *budget.Budget) Observed {
	return observed("ObserveBudget", budgetSeries, b, b == nil, func(b *budget.Budget, v []float64) {
		s := b.Stats()
		copy(v, []float64{float64(s.Allowed), float64(s.Refused)})
	})
}

var throttleSeries = series(throttleRefusals, throttleProbability)

// Throttle is t as ObserveThrottle reports it, read from t.Stats, which
// reads its clock: the calls it rejected, and the probability that it
// rejects the next.
func Throttle(t *throttle.Throttle) Observed {
	return observed("ObserveThrottle", throttleSeries, t, t == nil, func(t *throttle.Throttle, v []float64) {
		s := t.Stats()
		copy(v, []float64{float64(s.Rejected), s.Probability})
	})
}

var shedderSeries = series(shedderRetries, shedderLate, shedderQueueTime)

// GateStatser is what ObserveShedder reads: an httpshed.Shedder, named
// through its Stats so that this package does not import httpshed.
type GateStatser = interface{ Stats() pushback.GateStats }

// Shedder is s as ObserveShedder reports it, read from s.Stats: the
// requests it refused before its guard (retries under pressure, callers
// who would not wait for the queue), and the queue's time. Its guard is
// observed on its own (ObserveBulkhead...). A nil s, typed or not, is a
// nil guard.
func Shedder(s GateStatser) Observed {
	return observed("ObserveShedder", shedderSeries, s, s == nil || typednil.Is(s), func(s GateStatser, v []float64) {
		st := s.Stats()
		copy(v, []float64{float64(st.RetriesRefused), float64(st.LateRefused), st.QueueTime.Seconds()})
	})
}

var rateLimiterSeries = series(rateLimitRate, rateLimitBurst, rateLimitTokens, rateLimitWaiting, rateLimitWaited, rateLimitRefusals)

// RateLimitStats are the figures of a rate limiter (module ratelimit's
// Limiter.Stats), which this module cannot import: its rate and burst,
// the tokens in its bucket, the calls waiting, and its counts of calls
// admitted after a wait and refused.
type RateLimitStats struct {
	Rate, Tokens    float64
	Burst, Waiting  int64
	Waited, Refused uint64
}

// RateLimiter is a rate limiter as ObserveRateLimiter reports it, read by
// read at each collection; isNil for a nil limiter.
func RateLimiter(isNil bool, read func() RateLimitStats) Observed {
	return observed("ObserveRateLimiter", rateLimiterSeries, read, isNil, func(read func() RateLimitStats, v []float64) {
		s := read()
		copy(v, []float64{s.Rate, float64(s.Burst), s.Tokens, float64(s.Waiting), float64(s.Waited), float64(s.Refused)})
	})
}

// SharedGuard is the SharedGuard of both modules, which they declare as
// this type: a guard a fleet shares, such as those of module redisguard.
type SharedGuard = interface {
	Fallback() (local bool, fallbacks, recoveries uint64)
}

var sharedSeries = series(sharedLocal, sharedFallbacks, sharedRecoveries)

// Shared is g as ObserveShared reports it, read from g.Fallback: whether
// it decides on its local fallback, and its turns to it and back. A nil
// g, typed or not, is a nil guard.
func Shared(g SharedGuard) Observed {
	return observed("ObserveShared", sharedSeries, g, g == nil || typednil.Is(g), func(g SharedGuard, v []float64) {
		local, fallbacks, recoveries := g.Fallback()
		copy(v, []float64{one(local), float64(fallbacks), float64(recoveries)})
	})
}

// Registration is what both modules' Registration is made of: the end of
// one observation, run once.
type Registration struct {
	once sync.Once
	end  func() error
}

// NewRegistration returns the Registration of an observation that end
// ends.
func NewRegistration(end func() error) Registration {
	return Registration{end: end}
}

// Unregister ends the observation, the first time it is called, and
// returns end's error; later calls do nothing and return nil.
func (r *Registration) Unregister() error {
	var err error
	r.once.Do(func() { err = r.end() })
	return err
}
