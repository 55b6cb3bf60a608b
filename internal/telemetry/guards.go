package telemetry

import (
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/internal/typednil"
	"github.com/herdsafe/backoff/pushback"
)

// The Observe methods of otelbackoff and prombackoff report a guard's
// figures, read when the metrics are collected, under the guard's name:
// the same metrics, read the same way, which this file describes once. An
// exporter turns each Metric into an instrument (otelbackoff) or a
// description (prombackoff), and each Series into a measurement.

// Kind, Label, Metric and Series are the guard package's: each guard
// describes its own metrics (guard.Describer), and this package reads the
// description without knowing the guard.
type (
	Kind   = guard.MetricKind
	Label  = guard.Label
	Metric = guard.Metric
	Series = guard.Series
)

// The kinds of metric.
const (
	Counter = guard.Counter
	Level   = guard.Level
	Gauge   = guard.Gauge
)

// Observed is a guard as an Observe method reports it.
type Observed struct {
	Method string   // the method that observes it, such as "Observe"
	Kind   string   // its kind, such as "breaker": a name is taken once for each
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
	return setting.Join(nilGuard, noName, o.described(settings))
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

// Guard is g as method reports it: its Description, read with its
// ReadMetrics. A nil g, typed or not, is a nil guard (no Read). A
// Description that cannot be reported (no kind, a series of no metric) is
// reported by Check, when the guard is observed.
func Guard(method string, g guard.Describer) Observed {
	o := Observed{Method: method}
	if g == nil || typednil.Is(g) {
		return o
	}
	d := g.Describe()
	o.Kind, o.Series, o.Read = d.Kind, d.Series, g.ReadMetrics
	return o
}

// described reports what makes o's Description unusable, in the words of
// settings: no kind, no series, a series with no metric or no metric
// name, or a label value with no label. It is nil for the Observed of a nil guard,
// which Check reports.
func (o Observed) described(settings setting.Package) error {
	if o.Read == nil {
		return nil
	}
	switch {
	case o.Kind == "":
		return settings.Invalid("%s was given a guard whose Description has no Kind", o.Method)
	case len(o.Series) == 0:
		return settings.Invalid("%s was given a %s whose Description has no Series: nothing to report", o.Method, o.Kind)
	}
	for i, s := range o.Series {
		switch {
		case s.Metric == nil || s.Metric.Name == "":
			return settings.Invalid("%s was given a %s whose series %d has no metric name", o.Method, o.Kind, i)
		case s.Metric.Label == nil && s.Value != "":
			return settings.Invalid("%s was given a %s whose metric %s has the label value %q but no Label", o.Method, o.Kind, s.Metric.Name, s.Value)
		}
	}
	return nil
}

// The metrics of what is not a guard: a shedder's gate and a shared
// guard's link.
var (
	shedderRetries   = &Metric{Name: "shedder.retries_refused", Kind: Counter, Unit: "{request}", Help: "Retries the shedder refused under pressure, before its guard, saying do not retry."}
	shedderLate      = &Metric{Name: "shedder.late_refused", Kind: Counter, Unit: "{request}", Help: "Requests the shedder refused because their caller would not wait for its queue."}
	shedderQueueTime = &Metric{Name: "shedder.queue_time", Kind: Gauge, Unit: "s", Help: "The time requests wait now for the shedder's guard, in seconds.", Float: true}

	sharedLocal      = &Metric{Name: "shared_guard.local", Kind: Gauge, Unit: "1", Help: "1 while the guard decides on its local fallback, 0 while on the shared state."}
	sharedFallbacks  = &Metric{Name: "shared_guard.fallbacks", Kind: Counter, Unit: "{fallback}", Help: "Turns of the guard from the shared state to its local fallback."}
	sharedRecoveries = &Metric{Name: "shared_guard.recoveries", Kind: Counter, Unit: "{recovery}", Help: "Returns of the guard from its local fallback to the shared state."}
)

// observed returns the Observed of g, of kind, reported by method as
// series and read by read; for a nil g (isNil), one with no Read.
func observed[G any](method, kind string, series []Series, g G, isNil bool, read func(g G, v []float64)) Observed {
	o := Observed{Method: method, Kind: kind, Series: series}
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

// one returns 1 if b, else 0.
func one(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

var shedderSeries = series(shedderRetries, shedderLate, shedderQueueTime)

// GateStatser is what ObserveShedder reads: an httpshed.Shedder, named
// through its Stats so that this package does not import httpshed.
type GateStatser = interface{ Stats() pushback.GateStats }

// Shedder is s as ObserveShedder reports it, read from s.Stats: the
// requests it refused before its guard (retries under pressure, callers
// who would not wait for the queue), and the queue's time. Its guard is
// observed on its own (Observe). A nil s, typed or not, is a nil guard.
func Shedder(s GateStatser) Observed {
	return observed("ObserveShedder", "shedder", shedderSeries, s, s == nil || typednil.Is(s), func(s GateStatser, v []float64) {
		st := s.Stats()
		copy(v, []float64{float64(st.RetriesRefused), float64(st.LateRefused), st.QueueTime.Seconds()})
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
	return observed("ObserveShared", "shared_guard", sharedSeries, g, g == nil || typednil.Is(g), func(g SharedGuard, v []float64) {
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
