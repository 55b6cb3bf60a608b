package otelbackoff_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	otelbackoff "github.com/herdsafe/backoff/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

var errTransient = errors.New("transient")

// harness is an Instrumenter on the real SDK, with a span recorder and a
// manual metric reader.
type harness struct {
	spans  *tracetest.SpanRecorder
	tracer trace.Tracer // the caller's and the operation's tracer
	reader *sdkmetric.ManualReader
	in     *otelbackoff.Instrumenter
}

func newHarness(t *testing.T, opts ...otelbackoff.Option) *harness {
	t.Helper()
	h := &harness{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(h.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.reader))
	t.Cleanup(func() {
		if err := errors.Join(tp.Shutdown(context.Background()), mp.Shutdown(context.Background())); err != nil {
			t.Error(err)
		}
	})
	h.tracer = tp.Tracer("test")
	opts = append([]otelbackoff.Option{otelbackoff.WithTracerProvider(tp), otelbackoff.WithMeterProvider(mp)}, opts...)
	in, err := otelbackoff.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	h.in = in
	return h
}

// op returns an operation that opens a span of its own, "op", and fails
// with err its first n calls.
func (h *harness) op(n int, err error) func(context.Context) (int, error) {
	calls := 0
	return func(ctx context.Context) (int, error) {
		_, span := h.tracer.Start(ctx, "op")
		defer span.End()
		if calls++; calls <= n {
			return 0, err
		}
		return calls, nil
	}
}

// ended returns the spans that ended, by name.
func (h *harness) ended(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range h.spans.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// metric collects the metrics and returns the one named name.
func (h *harness) metric(t *testing.T, name string) (metricdata.Metrics, bool) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := h.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m, true
			}
		}
	}
	return metricdata.Metrics{}, false
}

// points returns the data points of the metric name, keyed by their
// attributes ("k=v,k=v"), as float64; nil if there is no such metric.
func (h *harness) points(t *testing.T, name string) map[string]float64 {
	t.Helper()
	m, ok := h.metric(t, name)
	if !ok {
		return nil
	}
	out := map[string]float64{}
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			out[key(p.Attributes)] = float64(p.Value)
		}
	case metricdata.Gauge[int64]:
		for _, p := range d.DataPoints {
			out[key(p.Attributes)] = float64(p.Value)
		}
	case metricdata.Gauge[float64]:
		for _, p := range d.DataPoints {
			out[key(p.Attributes)] = p.Value
		}
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			out[key(p.Attributes)] = float64(p.Count)
		}
	default:
		t.Fatalf("%s: unexpected data %T", name, m.Data)
	}
	return out
}

// histogram returns the data point of the histogram name with attributes
// k ("k=v,k=v").
func (h *harness) histogram(t *testing.T, name, k string) metricdata.HistogramDataPoint[float64] {
	t.Helper()
	m, _ := h.metric(t, name)
	if d, ok := m.Data.(metricdata.Histogram[float64]); ok {
		for _, p := range d.DataPoints {
			if key(p.Attributes) == k {
				return p
			}
		}
	}
	t.Fatalf("no histogram %s{%s}", name, k)
	return metricdata.HistogramDataPoint[float64]{}
}

// key encodes an attribute set as "k=v,k=v", sorted by key.
func key(s attribute.Set) string {
	var parts []string
	for _, kv := range s.ToSlice() {
		parts = append(parts, string(kv.Key)+"="+kv.Value.String())
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// attrs returns the attributes of a span or an event as "k=v" strings,
// sorted.
func attrs(kvs []attribute.KeyValue) []string {
	var out []string
	for _, kv := range kvs {
		out = append(out, fmt.Sprintf("%s=%s", kv.Key, kv.Value.String()))
	}
	slices.Sort(out)
	return out
}

// equalPoints fails t unless got holds exactly want.
func equalPoints(t *testing.T, name string, got, want map[string]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: got %v, want %v", name, got, want)
		return
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s: got %v, want %v", name, got, want)
			return
		}
	}
}
