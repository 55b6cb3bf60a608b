package otelbackoff_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/testkit/telemetrytest"
	otelbackoff "github.com/herdsafe/backoff/otel"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func TestNewRejectsInvalidOptions(t *testing.T) {
	cases := []struct {
		name string
		opt  otelbackoff.Option
		says string
	}{
		{"nil_option", nil, "New was given a nil Option"},
		{"nil_tracer_provider", otelbackoff.WithTracerProvider(nil), "WithTracerProvider"},
		{"nil_meter_provider", otelbackoff.WithMeterProvider(nil), "WithMeterProvider"},
		{"nil_error_type", otelbackoff.WithErrorType(nil), "WithErrorType"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, err := otelbackoff.New(c.opt)
			if in != nil || !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("New = %v, %v; want nil and an ErrInvalidConfiguration naming %s", in, err, c.says)
			}
		})
	}
}

// failingMeter fails to make its instruments.
type failingMeter struct{ noop.Meter }

var errMeter = errors.New("no instruments today")

func (failingMeter) Int64Counter(string, ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	return noop.Int64Counter{}, errMeter
}

type failingProvider struct{ noop.MeterProvider }

func (failingProvider) Meter(string, ...metric.MeterOption) metric.Meter { return failingMeter{} }

func TestNewReportsTheMetersError(t *testing.T) {
	_, err := otelbackoff.New(otelbackoff.WithMeterProvider(failingProvider{}))
	if !errors.Is(err, errMeter) || !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("New = %v, want the meter's error, matching ErrInvalidConfiguration", err)
	}
}

// New takes the providers that are global when it is called. (The test
// sets the global providers for the rest of the test binary: no other test
// uses them.)
func TestNewDefaultsToTheGlobalProviders(t *testing.T) {
	spans, reader := tracetest.NewSpanRecorder(), sdkmetric.NewManualReader()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	in, err := otelbackoff.New()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := backoff.Do(context.Background(), func(context.Context) (int, error) { return 1, nil }, backoff.WithInstrumenter(in)); err != nil {
		t.Fatal(err)
	}
	if n := len(spans.Ended()); n != 1 {
		t.Errorf("the global tracer provider recorded %d spans, want 1", n)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	if len(rm.ScopeMetrics) != 1 || rm.ScopeMetrics[0].Scope.Name != otelbackoff.ScopeName {
		t.Errorf("the global meter provider recorded %+v, want the scope %s", rm.ScopeMetrics, otelbackoff.ScopeName)
	}
}

func TestWithErrorType(t *testing.T) {
	h := newHarness(t, otelbackoff.WithErrorType(func(err error) string {
		if errors.Is(err, errTransient) {
			return "transient"
		}
		return "" // the package's rule
	}))
	ctx := context.Background()
	calls := 0
	op := func(context.Context) (int, error) {
		if calls++; calls == 1 {
			return 0, errTransient
		}
		if calls == 2 {
			return 0, errUnavailable
		}
		return calls, nil
	}
	if _, err := backoff.Do(ctx, op, telemetrytest.Every1s(h.in, telemetrytest.NoWait)...); err != nil {
		t.Fatal(err)
	}
	equalPoints(t, "backoff.retries", h.points(t, "backoff.retries"), map[string]float64{
		"error.type=transient,retry.name=fetch":               1,
		"error.type=" + typeUnavailable + ",retry.name=fetch": 1,
	})
}
