package redisguard

import (
	"testing"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/telemetry"
)

// readOf returns g's metrics as the telemetry modules read them, by
// series: "metric" or "metric{value}".
func readOf(t *testing.T, g guard.Describer) map[string]float64 {
	t.Helper()
	o := telemetry.Guard("Observe", g)
	if err := o.Check(settings, "x"); err != nil {
		t.Fatal(err)
	}
	v := make([]float64, len(o.Series))
	o.Read(v)
	out := map[string]float64{}
	for i, s := range o.Series {
		k := s.Metric.Name
		if s.Value != "" {
			k += "{" + s.Value + "}"
		}
		out[k] = v[i]
	}
	return out
}

// The shared guards describe the metrics of the local guards they stand
// for, the same metrics (so that a dashboard and a registry take either),
// read from what this instance knows; the shared breaker's load is a
// breaker's. Redis is unreachable here: the guards decide on their
// fallbacks, which their metrics follow.
func TestSharedGuardsDescribeThemselves(t *testing.T) {
	v := newVirtual()
	c := faultClient("127.0.0.1:1")
	defer c.Close()
	k := NewBreaker(c, name(t)+".breaker", v.option(), WithBreaker(breaker.WithConsecutiveFailures(1)))
	if got, want := k.Describe(), breaker.New().Describe(); got.Kind != want.Kind || &got.Series[0] != &want.Series[0] {
		t.Errorf("the shared breaker describes %q, not the metrics of a breaker", got.Kind)
	}
	if k.Load().Refusing {
		t.Error("a new shared breaker is Refusing")
	}
	if err := call(k, errDown); err != nil { // trips the local fallback
		t.Fatal(err)
	}
	m := readOf(t, k)
	for key, want := range map[string]float64{
		"breaker.state{open}": 1, "breaker.state{closed}": 0, "breaker.calls{failure}": 1, "breaker.calls{success}": 0,
		"breaker.forced_transitions": 0, "breaker.refusals": 0,
	} {
		if got, ok := m[key]; !ok || got != want {
			t.Errorf("shared breaker, tripped: %s = %v (present: %v), want %v", key, got, ok, want)
		}
	}
	if !k.Load().Refusing {
		t.Error("a shared breaker open is not Refusing")
	}

	b := NewTokenBucket(c, name(t)+".budget", v.option(), WithBudget(budget.WithMaxTokens(4)))
	if got, want := b.Describe(), budget.NewTokenBucket().Describe(); got.Kind != want.Kind || &got.Series[0] != &want.Series[0] {
		t.Errorf("the shared budget describes %q, not the metrics of a budget", got.Kind)
	}
	if _, err := b.Allow(bg, retry); err != nil {
		t.Fatal(err)
	}
	if m := readOf(t, b); m["budget.retries"] != 1 || m["budget.refusals"] != 0 {
		t.Errorf("shared budget after a retry: %v, want 1 retry, no refusal", m)
	}
	var nilBreaker *Breaker
	if nilBreaker.Load() != (guard.Load{}) {
		t.Error("a nil shared breaker tells a load")
	}
}
