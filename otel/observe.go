package otelbackoff

import (
	"context"
	"fmt"
	"math"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/httpshed"
	"github.com/herdsafe/backoff/internal/telemetry"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Observe reports g, a guard of any kind, under name, read from
// g.ReadMetrics when the metrics are collected: the metrics its Describe
// names, each an instrument named backoff. and the metric's name (a
// Counter an observable counter, a Level an up-down counter, a Gauge or a
// metric with a fraction a gauge), with the attribute guard.name and, for
// a metric with a Label, the label's attribute. Every guard of this
// repository is a guard.Describer, and so is a guard of your own that
// implements it: see Guards in the package documentation.
//
// A name is taken by one guard of each kind (Description.Kind) until its
// Registration is unregistered. A nil g, typed or not, an empty name and
// a Description that cannot be reported (no kind, no series, a series
// with no metric name, a label value with no label) are reported as an
// error matching backoff.ErrInvalidConfiguration. g.ReadMetrics is called on the
// collecting goroutine; if it panics, the panic goes on to the collector.
func (in *Instrumenter) Observe(name string, g guard.Describer) (*Registration, error) {
	return in.observe(name, telemetry.Guard("Observe", g))
}

// ObserveShedder reports s, an httpshed middleware, under name, read from
// s.Stats when the metrics are collected: the requests it refused before
// asking its guard (retries under pressure, callers who would not wait for
// its queue) and its queue's time, the backoff.shedder metrics. Observe its
// guard as well, with Observe.
func (in *Instrumenter) ObserveShedder(name string, s *httpshed.Shedder) (*Registration, error) {
	return in.observe(name, telemetry.Shedder(s))
}

// Registration is the observation of a guard that an Observe method
// registered.
type Registration struct{ r telemetry.Registration }

// Unregister stops the observation of the guard, and frees its name,
// which may then be observed again. It returns the meter's error, if any;
// a second call does nothing and returns nil, and so does a call on a nil
// *Registration, what an Observe method returns with its error: it
// registered nothing.
func (r *Registration) Unregister() error {
	if r == nil {
		return nil
	}
	return r.r.Unregister()
}

// observedKey names an observed guard.
type observedKey struct {
	kind string // its Description's Kind
	name string
}

// observe checks the arguments of an Observe method, takes the guard's
// name, and registers the callback of o.
func (in *Instrumenter) observe(name string, o telemetry.Observed) (*Registration, error) {
	in.check()
	if err := o.Check(settings, name); err != nil {
		return nil, err
	}
	key := observedKey{o.Kind, name}
	in.mu.Lock()
	taken := in.observed[key]
	in.observed[key] = true
	in.mu.Unlock()
	if taken {
		return nil, settings.Invalid("%s: a guard named %q is already observed", o.Method, name)
	}
	release := func() {
		in.mu.Lock()
		delete(in.observed, key)
		in.mu.Unlock()
	}
	reg, err := in.register(GuardKey.String(name), o)
	if err != nil {
		release()
		return nil, fmt.Errorf("otelbackoff: %s: %w", o.Method, err)
	}
	return &Registration{r: telemetry.NewRegistration(func() error {
		defer release()
		return reg.Unregister()
	})}, nil
}

// register registers the callback that reads o, the guard named guard.
// The attribute sets of its series are made once, here.
func (in *Instrumenter) register(guard attribute.KeyValue, o telemetry.Observed) (metric.Registration, error) {
	instruments := make(map[*telemetry.Metric]metric.Observable)
	var all []metric.Observable
	for _, m := range o.Metrics() {
		inst, err := in.instrument(m)
		if err != nil {
			return nil, err
		}
		instruments[m] = inst
		all = append(all, inst)
	}
	opts := make([]metric.ObserveOption, len(o.Series))
	for i, s := range o.Series {
		kvs := []attribute.KeyValue{guard}
		if s.Metric.Label != nil && s.Value != "" {
			kvs = append(kvs, attribute.String(s.Metric.Label.Attribute, s.Value))
		}
		opts[i] = metric.WithAttributeSet(attribute.NewSet(kvs...))
	}
	return in.meter.RegisterCallback(func(_ context.Context, ob metric.Observer) error {
		values := make([]float64, len(o.Series))
		o.Read(values)
		for i, s := range o.Series {
			switch inst := instruments[s.Metric].(type) {
			case metric.Float64Observable:
				ob.ObserveFloat64(inst, values[i], opts[i])
			case metric.Int64Observable:
				ob.ObserveInt64(inst, count(values[i]), opts[i])
			}
		}
		return nil
	}, all...)
}

// instrument makes the instrument of m: an observable counter, up-down
// counter or gauge, of int64 but for a value with a fraction.
func (in *Instrumenter) instrument(m *telemetry.Metric) (metric.Observable, error) {
	name, unit, desc := "backoff."+m.Name, metric.WithUnit(m.Unit), metric.WithDescription(m.Help)
	switch {
	case m.Float:
		return in.meter.Float64ObservableGauge(name, unit, desc)
	case m.Kind == telemetry.Counter:
		return in.meter.Int64ObservableCounter(name, unit, desc)
	case m.Kind == telemetry.Level:
		return in.meter.Int64ObservableUpDownCounter(name, unit, desc)
	}
	return in.meter.Int64ObservableGauge(name, unit, desc)
}

// count converts a reading for an int64 instrument, saturating.
func count(v float64) int64 {
	if v >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}
