package otelbackoff_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/telemetry"
	"github.com/herdsafe/backoff/internal/testkit/telemetrytest"
	"github.com/herdsafe/backoff/limiter"
	otelbackoff "github.com/herdsafe/backoff/otel"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// The Observe methods keep the promises of both modules: see
// telemetrytest.Observe.
func TestObserve(t *testing.T) {
	h := newHarness(t)
	telemetrytest.Observe(t, h.in, "otelbackoff", func(guard string) int {
		n := 0
		for k := range h.points(t, "backoff.breaker.state") {
			if strings.Contains(k, "guard.name="+guard) {
				n++
			}
		}
		return n
	})
}

// Every series of every guard is reported under its metric's name, with
// guard.name and its label's attribute (none for an empty value), as the
// instrument of its kind, with the value the guard's reading gives.
func TestObserveReportsEverySeries(t *testing.T) {
	h := newHarness(t)
	busy := telemetrytest.BusyGuards()
	observed := []struct {
		name    string
		o       telemetry.Observed
		observe func() (*otelbackoff.Registration, error)
	}{
		{"cb", telemetry.Guard("Observe", busy.Breaker), func() (*otelbackoff.Registration, error) { return h.in.Observe("cb", busy.Breaker) }},
		{"plain", telemetry.Guard("Observe", busy.Bulkhead), func() (*otelbackoff.Registration, error) { return h.in.Observe("plain", busy.Bulkhead) }},
		{"prio", telemetry.Guard("Observe", busy.PriorityBulkhead), func() (*otelbackoff.Registration, error) {
			return h.in.Observe("prio", busy.PriorityBulkhead)
		}},
		{"budget", telemetry.Guard("Observe", busy.Budget), func() (*otelbackoff.Registration, error) { return h.in.Observe("budget", busy.Budget) }},
		{"throttle", telemetry.Guard("Observe", busy.Throttle), func() (*otelbackoff.Registration, error) { return h.in.Observe("throttle", busy.Throttle) }},
		{"limiter", telemetry.Guard("Observe", busy.Limiter), func() (*otelbackoff.Registration, error) { return h.in.Observe("limiter", busy.Limiter) }},
		{"shared", telemetry.Shared(busy.Shared), func() (*otelbackoff.Registration, error) { return h.in.ObserveShared("shared", busy.Shared) }},
	}
	for _, g := range observed {
		if _, err := g.observe(); err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range observed {
		values := make([]float64, len(g.o.Series))
		g.o.Read(values)
		for i, s := range g.o.Series {
			name := "backoff." + s.Metric.Name
			parts := []string{"guard.name=" + g.name}
			if s.Value != "" {
				parts = append(parts, s.Metric.Label.Attribute+"="+s.Value)
			}
			slices.Sort(parts)
			k := strings.Join(parts, ",")
			if got, ok := h.points(t, name)[k]; !ok || got != values[i] {
				t.Errorf("%s{%s} = %v (present: %v), want %v", name, k, got, ok, values[i])
			}
			if kind := h.kind(t, name); kind != instrumentKind(s.Metric) {
				t.Errorf("%s is a %s, want a %s", name, kind, instrumentKind(s.Metric))
			}
		}
	}
	if got := h.points(t, "backoff.bulkhead.queued"); len(got) != 1 {
		t.Errorf("backoff.bulkhead.queued has the points %v, want the plain bulkhead's alone", got)
	}
}

// instrumentKind is what h.kind says of the instrument of m.
func instrumentKind(m *telemetry.Metric) string {
	switch {
	case m.Float:
		return "float gauge"
	case m.Kind == telemetry.Counter:
		return "counter"
	case m.Kind == telemetry.Level:
		return "up-down counter"
	}
	return "gauge"
}

// kind returns what instrument the metric name is.
func (h *harness) kind(t *testing.T, name string) string {
	t.Helper()
	m, ok := h.metric(t, name)
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		if d.IsMonotonic {
			return "counter"
		}
		return "up-down counter"
	case metricdata.Gauge[int64]:
		return "gauge"
	case metricdata.Gauge[float64]:
		return "float gauge"
	}
	if !ok {
		return "missing"
	}
	return "unknown"
}

// The exported attribute keys of the guards' labels are those the
// observations use.
func TestLabelKeys(t *testing.T) {
	for key, l := range map[string]*telemetry.Label{
		string(otelbackoff.BreakerStateKey):    labelOf(t, breaker.New(), "breaker.state"),
		string(otelbackoff.BreakerOutcomeKey):  labelOf(t, breaker.New(), "breaker.calls"),
		string(otelbackoff.PriorityKey):        labelOf(t, bulkhead.NewPriority(1), "bulkhead.refusals"),
		string(otelbackoff.LimiterPriorityKey): labelOf(t, limiter.New(), "limiter.refusals"),
	} {
		if key != l.Attribute {
			t.Errorf("the key %q is reported as %q", key, l.Attribute)
		}
	}
}

// labelOf returns the label of g's metric named metric.
func labelOf(t *testing.T, g guard.Describer, metric string) *guard.Label {
	t.Helper()
	for _, s := range g.Describe().Series {
		if s.Metric.Name == metric {
			return s.Metric.Label
		}
	}
	t.Fatalf("%T describes no metric %s", g, metric)
	return nil
}
