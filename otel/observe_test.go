package otelbackoff_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/telemetry"
	"github.com/herdsafe/backoff/internal/telemetry/telemetrytest"
	otelbackoff "github.com/herdsafe/backoff/otel"
	"github.com/herdsafe/backoff/throttle"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// scriptedShared is a SharedGuard whose figures a test sets.
type scriptedShared struct {
	local                 bool
	fallbacks, recoveries uint64
}

func (s *scriptedShared) Fallback() (bool, uint64, uint64) { return s.local, s.fallbacks, s.recoveries }

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
	ctx := context.Background()
	cb := breaker.New(breaker.WithConsecutiveFailures(1), breaker.WithClock(clock.NewMock()))
	_ = cb.Run(ctx, func(context.Context) error { return errTransient }) // trips it
	_ = cb.Run(ctx, func(context.Context) error { return nil })          // refused
	plain := bulkhead.New(2)
	_, _ = plain.Allow(ctx, guard.Call{Attempt: 1})
	prio := bulkhead.NewPriority(4)
	for range 3 {
		_, _ = prio.Allow(bulkhead.WithPriority(ctx, bulkhead.Low), guard.Call{Attempt: 1})
	}
	b := budget.NewTokenBucket(budget.WithMaxTokens(1))
	_, _ = b.Allow(ctx, guard.Call{Attempt: 2})
	tr := throttle.New(throttle.WithClock(clock.NewMock()), throttle.WithRandom(func() float64 { return 0 }))
	if p, err := tr.Allow(ctx, guard.Call{Attempt: 1}); err == nil {
		tr.Record(p, guard.Outcome{Err: errTransient})
	}
	_, _ = tr.Allow(ctx, guard.Call{Attempt: 1})
	shared := &scriptedShared{local: true, fallbacks: 3, recoveries: 2}

	observed := []struct {
		name    string
		o       telemetry.Observed
		observe func() (*otelbackoff.Registration, error)
	}{
		{"cb", telemetry.Breaker(cb), func() (*otelbackoff.Registration, error) { return h.in.ObserveBreaker("cb", cb) }},
		{"plain", telemetry.Bulkhead(plain), func() (*otelbackoff.Registration, error) { return h.in.ObserveBulkhead("plain", plain) }},
		{"prio", telemetry.PriorityBulkhead(prio), func() (*otelbackoff.Registration, error) {
			return h.in.ObservePriorityBulkhead("prio", prio)
		}},
		{"budget", telemetry.Budget(b), func() (*otelbackoff.Registration, error) { return h.in.ObserveBudget("budget", b) }},
		{"throttle", telemetry.Throttle(tr), func() (*otelbackoff.Registration, error) { return h.in.ObserveThrottle("throttle", tr) }},
		{"shared", telemetry.Shared(shared), func() (*otelbackoff.Registration, error) { return h.in.ObserveShared("shared", shared) }},
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
		string(otelbackoff.BreakerStateKey):   telemetry.StateLabel,
		string(otelbackoff.BreakerOutcomeKey): telemetry.OutcomeLabel,
		string(otelbackoff.PriorityKey):       telemetry.PriorityLabel,
	} {
		if key != l.Attribute {
			t.Errorf("the key %q is reported as %q", key, l.Attribute)
		}
	}
}
