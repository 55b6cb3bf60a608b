package herd_test

import (
	"errors"
	"testing"
	"time"

	"github.com/herdsafe/backoff/herd"
)

// The layers scenario agrees with the hand calculation: with every call
// failing, n tiers of k tries send k^n calls to the dependency per user
// call when each retries (3 tiers of 3: 27), k when a tier whose retries
// are spent says so (only the lowest retries), and 1 while healthy.
func TestLayersHandCalculation(t *testing.T) {
	cases := []struct {
		tiers    int
		tries    uint
		strategy string
		down     float64
	}{
		{3, 3, herd.LayersRetry, 27},
		{3, 3, herd.LayersSignal, 3},
		{2, 3, herd.LayersRetry, 9},
		{2, 3, herd.LayersSignal, 3},
		{4, 2, herd.LayersRetry, 16},
		{4, 2, herd.LayersSignal, 2},
		{3, 1, herd.LayersRetry, 1},
		{1, 5, herd.LayersRetry, 5},
	}
	for _, c := range cases {
		res, err := herd.Layers(herd.LayersConfig{Tiers: c.tiers, Tries: c.tries, Rate: 10}, c.strategy)
		if err != nil {
			t.Fatal(err)
		}
		want := []float64{1, c.down, 1}
		for i, p := range res.Phases {
			if p.Amplification() != want[i] {
				t.Errorf("%d tiers of %d tries, %s: %s amplification %v, want %v", c.tiers, c.tries, c.strategy, p.Name, p.Amplification(), want[i])
			}
		}
		if down := res.Phases[1]; down.Failed != down.UserCalls || res.Recovery != 0 {
			t.Errorf("%s: %d of %d user calls failed while down, recovery %v; want all, and 0", c.strategy, down.Failed, down.UserCalls, res.Recovery)
		}
	}
}

// A retry budget per tier brings the outage down to about one call per
// user call, once the budgets are spent; retry-first shedding to what the
// servers' capacity lets through.
func TestLayersGuards(t *testing.T) {
	budget, err := herd.Layers(herd.LayersConfig{}, herd.LayersBudget)
	if err != nil {
		t.Fatal(err)
	}
	// 3000 user calls: the token buckets (10 tokens, retries above 5) allow
	// a few retries at the outage's start, then none.
	if a := budget.Phases[1].Amplification(); a < 1 || a > 1.05 {
		t.Errorf("budget: down amplification %v, want about 1", a)
	}
	shed, err := herd.Layers(herd.LayersConfig{}, herd.LayersShed)
	if err != nil {
		t.Fatal(err)
	}
	// The dependency serves at most 2× the user rate; tier by tier, the
	// retries past 80% of each server's capacity are refused, with the
	// signal.
	if a := shed.Phases[1].Amplification(); a > 2 || a < 1 {
		t.Errorf("shed: down amplification %v, want at most the capacity, 2", a)
	}
	for _, r := range []herd.LayersResult{budget, shed} {
		if r.Phases[0].Amplification() != 1 || r.Phases[2].Amplification() > 1.01 || r.Recovery != 0 {
			t.Errorf("%s: warm-up %v, healthy %v, recovery %v; want 1, 1 and 0", r.Strategy, r.Phases[0].Amplification(), r.Phases[2].Amplification(), r.Recovery)
		}
	}
}

// Bad settings are refused, naming them.
func TestLayersInvalid(t *testing.T) {
	for _, c := range []struct {
		cfg      herd.LayersConfig
		strategy string
	}{
		{herd.LayersConfig{Tiers: -1}, herd.LayersRetry},
		{herd.LayersConfig{Tiers: 7}, herd.LayersRetry},
		{herd.LayersConfig{Tries: 11}, herd.LayersRetry},
		{herd.LayersConfig{Rate: -5}, herd.LayersRetry},
		{herd.LayersConfig{Down: -time.Second}, herd.LayersRetry},
		{herd.LayersConfig{Warmup: 2_000_000 * time.Hour, Down: 2_000_000 * time.Hour}, herd.LayersRetry}, // a sum that wraps below 0
		{herd.LayersConfig{Capacity: -1}, herd.LayersShed},
		{herd.LayersConfig{}, "breaker"},
	} {
		if _, err := herd.Layers(c.cfg, c.strategy); !errors.Is(err, herd.ErrInvalidConfig) {
			t.Errorf("Layers(%+v, %q) = %v; want ErrInvalidConfig", c.cfg, c.strategy, err)
		}
	}
}
