package otelbackoff

import (
	"errors"
	"fmt"
	"math"

	"github.com/herdsafe/backoff"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// The Observe methods register a callback with the meter that reads a
// guard's counts when the metrics are collected, on the collecting
// goroutine: no goroutine of their own, nothing on the guard's call path.

// observedKey names an observed guard.
type observedKey struct {
	kind string // the method that observes it
	name string
}

// registration is a metric.Registration that also forgets the guard's
// name, so that it may be observed again.
type registration struct {
	metric.Registration
	release func()
}

// Unregister stops the observation of the guard.
func (r *registration) Unregister() error {
	err := r.Registration.Unregister()
	r.release()
	return err
}

// observe checks the arguments of an Observe method, and registers the
// callback that build makes. build receives the attribute set of the
// guard's name.
func (in *Instrumenter) observe(kind, name string, nilGuard bool, build func(guard attribute.KeyValue) (metric.Callback, []metric.Observable, error)) (metric.Registration, error) {
	in.check()
	switch {
	case nilGuard:
		return nil, fmt.Errorf("otelbackoff: %s was given a nil guard: %w", kind, backoff.ErrInvalidConfiguration)
	case name == "":
		return nil, fmt.Errorf("otelbackoff: %s was given an empty name: %w", kind, backoff.ErrInvalidConfiguration)
	}
	key := observedKey{kind, name}
	in.mu.Lock()
	taken := in.observed[key]
	in.observed[key] = true
	in.mu.Unlock()
	if taken {
		return nil, fmt.Errorf("otelbackoff: %s: a guard named %q is already observed: %w", kind, name, backoff.ErrInvalidConfiguration)
	}
	release := func() {
		in.mu.Lock()
		delete(in.observed, key)
		in.mu.Unlock()
	}
	cb, instruments, err := build(GuardKey.String(name))
	if err == nil {
		var reg metric.Registration
		if reg, err = in.meter.RegisterCallback(cb, instruments...); err == nil {
			return &registration{Registration: reg, release: release}, nil
		}
	}
	release()
	return nil, fmt.Errorf("otelbackoff: %s: %w", kind, err)
}

// instruments collects the errors of making instruments.
type instruments struct {
	m    metric.Meter
	errs []error
	all  []metric.Observable
}

func (b *instruments) err() error { return errors.Join(b.errs...) }

func (b *instruments) counter(name, unit, desc string) metric.Int64ObservableCounter {
	c, err := b.m.Int64ObservableCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
	b.add(c, err)
	return c
}

func (b *instruments) upDown(name, unit, desc string) metric.Int64ObservableUpDownCounter {
	c, err := b.m.Int64ObservableUpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
	b.add(c, err)
	return c
}

func (b *instruments) gauge(name, unit, desc string) metric.Int64ObservableGauge {
	g, err := b.m.Int64ObservableGauge(name, metric.WithUnit(unit), metric.WithDescription(desc))
	b.add(g, err)
	return g
}

func (b *instruments) floatGauge(name, unit, desc string) metric.Float64ObservableGauge {
	g, err := b.m.Float64ObservableGauge(name, metric.WithUnit(unit), metric.WithDescription(desc))
	b.add(g, err)
	return g
}

func (b *instruments) add(o metric.Observable, err error) {
	if err != nil {
		b.errs = append(b.errs, err)
	}
	b.all = append(b.all, o)
}

// set is the observe option of the guard's name and the attributes kv.
func set(guard attribute.KeyValue, kv ...attribute.KeyValue) metric.ObserveOption {
	return metric.WithAttributeSet(attribute.NewSet(append([]attribute.KeyValue{guard}, kv...)...))
}

// count converts a count for an int64 instrument, saturating.
func count(n uint64) int64 {
	if n > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(n)
}
