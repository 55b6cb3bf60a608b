package herd_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/herd"
)

func TestScenariosListsOutageAndOverload(t *testing.T) {
	t.Parallel()
	got := herd.Scenarios()
	if len(got) != 6 || got[0] != herd.OCC || got[1] != herd.Restart || got[2] != herd.Outage || got[3] != herd.Shed || got[4] != herd.Pushback || got[5] != herd.Overload {
		t.Fatalf("Scenarios() = %v, want occ, restart, outage, shed, pushback, overload", got)
	}
}

// The zero settings of Outage are its defaults; a Phases that is not
// zero is used as given.
func TestOutageDefaults(t *testing.T) {
	t.Parallel()
	cfg := herd.Config{Scenario: herd.Outage, Clients: 2, NewBackOff: outageStrategy(t, "retry").NewBackOff, Arrivals: herd.Even}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("Validate of the defaults: %v", err)
	}
	r := mustSimulate(t, cfg)
	o := r.Outage
	perPhase := func(d time.Duration) int { return int(d.Seconds() * herd.DefaultRate * 2) }
	want := [herd.NumPhases]int{perPhase(herd.DefaultWarmup), perPhase(herd.DefaultDown), perPhase(herd.DefaultDegraded), perPhase(herd.DefaultHealthy)}
	for p, c := range o.Phases {
		if c.UserCalls != want[p] {
			t.Errorf("%v: %d user calls, want %d", herd.Phase(p), c.UserCalls, want[p])
		}
	}
	if o.Base != 2*herd.DefaultRate*herd.DefaultWindow.Seconds() {
		t.Errorf("Base = %v", o.Base)
	}
	if got := o.Phases[herd.PhaseDown].Amplification(); got < 2.5 {
		t.Errorf("%d tries by default: amplification while down %v", herd.DefaultTries, got)
	}
	// No degraded phase: the dependency is healthy again at once.
	cfg.Phases = herd.Phases{Warmup: time.Second, Down: time.Second, Healthy: 2 * time.Second}
	if c := mustSimulate(t, cfg).Outage.Phases[herd.PhaseDegraded]; c != (herd.PhaseCounts{}) {
		t.Errorf("a degraded phase of 0s counted %+v", c)
	}
}

func TestOutageInvalidConfig(t *testing.T) {
	t.Parallel()
	good := smallOutage(outageStrategy(t, "retry"), 1)
	cases := []invalidConfig{
		{"negative_rate", func(c *herd.Config) { c.Rate = -1 }, "Rate"},
		{"nan_rate", func(c *herd.Config) { c.Rate = math.NaN() }, "Rate"},
		{"infinite_rate", func(c *herd.Config) { c.Rate = math.Inf(1) }, "Rate"},
		{"negative_tries", func(c *herd.Config) { c.Tries = -1 }, "Tries"},
		{"negative_warmup", func(c *herd.Config) { c.Phases.Warmup = -1 }, "Phases.Warmup"},
		{"negative_degraded", func(c *herd.Config) { c.Phases.Degraded = -1 }, "Phases.Degraded"},
		{"no_outage", func(c *herd.Config) { c.Phases.Down = 0 }, "Phases.Down"},
		{"short_healthy", func(c *herd.Config) { c.Phases.Healthy = herd.RecoveryHold - 1 }, "Phases.Healthy"},
		{"healthy_without_a_window", func(c *herd.Config) { c.Window = 2 * time.Second; c.Phases.Healthy = time.Second }, "Phases.Healthy"},
		{"failures_above_one", func(c *herd.Config) { c.Phases.DegradedFailures = 1.5 }, "Phases.DegradedFailures"},
		{"nan_failures", func(c *herd.Config) { c.Phases.DegradedFailures = math.NaN() }, "Phases.DegradedFailures"},
		{"longer_than_the_horizon", func(c *herd.Config) { c.Horizon = 10 * time.Second }, "Horizon"},
		{"too_many_user_calls", func(c *herd.Config) { c.Rate = 1e9 }, "user calls"},
		{"too_few_user_calls", func(c *herd.Config) { c.Rate = 1e-300 }, "Clients × Rate"},
		{"nil_backoff", func(c *herd.Config) { c.NewBackOff = nil }, "NewBackOff"},
		{"unknown_arrivals", func(c *herd.Config) { c.Arrivals = "bursty" }, "Arrivals"},
	}
	testInvalidConfigs(t, good, cases)
}

func TestOutageInvalidGuards(t *testing.T) {
	t.Parallel()
	shared := backoff.NewExponentialBackOff()
	cases := []struct {
		name    string
		guards  func(clock.Clock, func() float64) []guard.Guard
		backOff func() backoff.BackOff
		also    error
	}{
		{"nil_guard", func(clock.Clock, func() float64) []guard.Guard { return []guard.Guard{nil} }, nil, nil},
		{"invalid_guard", func(clock.Clock, func() float64) []guard.Guard {
			return []guard.Guard{budget.NewTokenBucket(budget.WithMaxTokens(0))}
		}, nil, backoff.ErrInvalidConfiguration},
		{"nil_backoff", nil, func() backoff.BackOff { return nil }, nil},
		{"shared_backoff", nil, func() backoff.BackOff { return shared }, nil},
		{"invalid_backoff", nil, func() backoff.BackOff { return backoff.NewExponentialBackOff(backoff.WithMultiplier(0.5)) }, backoff.ErrInvalidConfiguration},
		{"negative_wait", nil, func() backoff.BackOff { return negativeBackOff{} }, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := tinyOutage(herd.Strategy{NewBackOff: tc.backOff, NewGuards: tc.guards}, 1)
			if tc.backOff == nil {
				cfg.NewBackOff = outageStrategy(t, "retry").NewBackOff
			}
			r := herd.Simulate(cfg)
			if !errors.Is(r.Err, herd.ErrInvalidBackOff) || !errors.Is(r.Err, backoff.ErrInvalidConfiguration) || errors.Is(r.Err, herd.ErrInvalidConfig) || (tc.also != nil && !errors.Is(r.Err, tc.also)) {
				t.Fatalf("Err = %v, want ErrInvalidBackOff and backoff.ErrInvalidConfiguration (and %v), not ErrInvalidConfig", r.Err, tc.also)
			}
		})
	}
}

// A Delay draws |Mean + normal×StdDev|, capped at the largest Duration,
// and draws nothing from its source when it has no variance.
func TestDelayDraw(t *testing.T) {
	t.Parallel()
	calls := 0
	normal := func(v float64) func() float64 {
		return func() float64 { calls++; return v }
	}
	d := herd.Delay{Mean: 10 * time.Millisecond, StdDev: 2 * time.Millisecond}
	for _, c := range []struct {
		n    float64
		want time.Duration
	}{{0, 10 * time.Millisecond}, {1.5, 13 * time.Millisecond}, {-6, 2 * time.Millisecond}, {1e300, math.MaxInt64}} {
		if got := d.Draw(normal(c.n)); got != c.want {
			t.Errorf("Draw with normal %v = %v, want %v", c.n, got, c.want)
		}
	}
	if calls != 4 {
		t.Errorf("normal called %d times for 4 draws, want 4", calls)
	}
	if got := (herd.Delay{Mean: time.Second}).Draw(normal(3)); got != time.Second || calls != 4 {
		t.Errorf("Draw without variance = %v and called normal %d times in all, want 1s and 4", got, calls)
	}
	if got := (herd.Delay{Mean: math.MaxInt64, StdDev: math.MaxInt64}).Draw(normal(1)); got != math.MaxInt64 {
		t.Errorf("Draw past the largest Duration = %v, want %v", got, time.Duration(math.MaxInt64))
	}
}
