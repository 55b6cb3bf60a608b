package ratelimit_test

import (
	"context"
	"math"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/ratelimit"
)

// A Limiter describes its metrics and reads them from Stats, every series
// written, without allocating: what the telemetry modules' Observe reads.
func TestLimiterDescribesItself(t *testing.T) {
	l := ratelimit.New(10, 2, ratelimit.WithClock(clock.NewMock()))
	d := l.Describe()
	if d.Kind != "rate_limiter" || len(d.Series) != 6 {
		t.Fatalf("Describe = %+v", d)
	}
	for range 3 {
		_, _ = l.Allow(context.Background(), guard.Call{Attempt: 1})
	}
	v := make([]float64, len(d.Series))
	for i := range v {
		v[i] = math.NaN()
	}
	l.ReadMetrics(v)
	got := map[string]float64{}
	for i, s := range d.Series {
		got[s.Metric.Name] = v[i]
	}
	want := map[string]float64{"ratelimit.rate": 10, "ratelimit.burst": 2, "ratelimit.tokens": 0, "ratelimit.waiting": 0, "ratelimit.waited": 0, "ratelimit.refusals": 1}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%s = %v (present: %v), want %v", k, g, ok, w)
		}
	}
	if n := testing.AllocsPerRun(100, func() { l.ReadMetrics(v) }); n != 0 {
		t.Errorf("ReadMetrics: %v allocations, want 0", n)
	}
}
