package otelbackoff

import (
	"github.com/herdsafe/backoff/internal/setting"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Option configures New.
type Option func(*config)

type config struct {
	tracers   trace.TracerProvider // nil: the global provider
	meters    metric.MeterProvider // nil: the global provider
	errorType func(error) string
	err       error // the first invalid option
}

// settings makes the errors of the settings New and the Observe methods
// cannot use.
const settings = setting.Package("otelbackoff")

// WithTracerProvider takes the tracer of the attempts' spans from tp
// instead of the global provider (otel.GetTracerProvider). Pass a no-op
// provider (go.opentelemetry.io/otel/trace/noop) to record metrics only. A
// nil tp is reported by New as ErrInvalidConfiguration.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) {
		setting.NotNil(settings, &c.err, &c.tracers, tp, "WithTracerProvider", "TracerProvider")
	}
}

// WithMeterProvider takes the meter of the metrics from mp instead of the
// global provider (otel.GetMeterProvider). Pass a no-op provider
// (go.opentelemetry.io/otel/metric/noop) to record spans only. A nil mp is
// reported by New as ErrInvalidConfiguration.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) {
		setting.NotNil(settings, &c.err, &c.meters, mp, "WithMeterProvider", "MeterProvider")
	}
}

// WithErrorType names the type of an attempt's error, for the error.type
// attribute, with fn instead of the package's rule (see the package
// documentation): fn receives State.Err as the operation returned it, and
// a result of "" falls back to the rule. fn must return values of a small,
// bounded set, since each is a metric series: never an error's message.
//
// fn is called on the goroutine of the retry call, holding no lock; if it
// panics, the panic goes on to the caller of the retry, as a panic in any
// Instrumenter does. A nil fn is reported by New as ErrInvalidConfiguration.
func WithErrorType(fn func(error) string) Option {
	return func(c *config) {
		setting.NotNil(settings, &c.err, &c.errorType, fn, "WithErrorType", "function")
	}
}
