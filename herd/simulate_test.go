package herd_test

import (
	"errors"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/herd"
)

// noVariance is a network where every message takes exactly 10 ms.
var noVariance = herd.Delay{Mean: 10 * time.Millisecond}

func strategies() []herd.Strategy { return herd.Strategies(herd.DefaultBase, herd.DefaultCap) }

// fleetScenarios are the scenarios whose clients each want one success;
// outage_test.go tests Outage.
var fleetScenarios = []herd.Scenario{herd.OCC, herd.Restart}

func mustSimulate(t *testing.T, cfg herd.Config) herd.Result {
	t.Helper()
	r := herd.Simulate(cfg)
	if r.Err != nil {
		t.Fatalf("Simulate(%+v): %v", cfg, r.Err)
	}
	return r
}

// checkInvariants asserts what every Result must satisfy, whatever the
// BackOff: the counts add up, Load and PeakLoad agree with Calls.
func checkInvariants(t *testing.T, cfg herd.Config, r herd.Result) {
	t.Helper()
	sum := func(s []int) (n int) {
		for _, v := range s {
			n += v
		}
		return n
	}
	maxCalls := cfg.MaxCalls
	if maxCalls == 0 {
		maxCalls = herd.DefaultMaxCalls
	}
	switch {
	case r.Scenario != cfg.Scenario || r.Clients != cfg.Clients:
		t.Errorf("Result names %s/%d, want %s/%d", r.Scenario, r.Clients, cfg.Scenario, cfg.Clients)
	case len(r.ClientCalls) != cfg.Clients:
		t.Errorf("len(ClientCalls) = %d, want %d", len(r.ClientCalls), cfg.Clients)
	case sum(r.ClientCalls) != r.Calls:
		t.Errorf("ClientCalls sum to %d, Calls = %d", sum(r.ClientCalls), r.Calls)
	case sum(r.Load) != r.Calls:
		t.Errorf("Load sums to %d, Calls = %d", sum(r.Load), r.Calls)
	case len(r.Load) > 0 && slices.Max(r.Load) != r.PeakLoad:
		t.Errorf("PeakLoad = %d, max(Load) = %d", r.PeakLoad, slices.Max(r.Load))
	case r.Succeeded+r.GaveUp+r.Unfinished() != r.Clients || r.Unfinished() < 0:
		t.Errorf("Succeeded %d + GaveUp %d + Unfinished %d != Clients %d", r.Succeeded, r.GaveUp, r.Unfinished(), r.Clients)
	case slices.Max(r.ClientCalls) > maxCalls:
		t.Errorf("a client made %d calls, over MaxCalls %d", slices.Max(r.ClientCalls), maxCalls)
	case slices.Min(r.ClientCalls) < 1:
		t.Errorf("a client made no call")
	case r.Window != herd.DefaultWindow && cfg.Window == 0:
		t.Errorf("Window = %v, want the default %v", r.Window, herd.DefaultWindow)
	}
}

func TestInvariants(t *testing.T) {
	t.Parallel()
	for _, sc := range fleetScenarios {
		for _, st := range strategies() {
			for _, n := range []int{1, 2, 37} {
				for seed := range uint64(3) {
					cfg := herd.Config{Scenario: sc, Clients: n, NewBackOff: st.NewBackOff, Seed: seed, MaxCalls: 50}
					r := mustSimulate(t, cfg)
					checkInvariants(t, cfg, r)
					if r.Unfinished() != 0 {
						t.Errorf("%s/%s/%d: %d clients unfinished", sc, st.Name, n, r.Unfinished())
					}
				}
			}
		}
	}
}

func TestSameSeedSameResult(t *testing.T) {
	t.Parallel()
	for _, sc := range fleetScenarios {
		for _, st := range strategies() {
			t.Run(string(sc)+"/"+st.Name, func(t *testing.T) {
				t.Parallel()
				cfg := herd.Config{Scenario: sc, Clients: 100, NewBackOff: st.NewBackOff, Seed: 42}
				a, b := mustSimulate(t, cfg), mustSimulate(t, cfg)
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("two runs with seed 42 differ: %d vs %d calls, %v vs %v", a.Calls, b.Calls, a.Completion, b.Completion)
				}
				cfg.Seed = 43
				if c := mustSimulate(t, cfg); reflect.DeepEqual(a.ClientCalls, c.ClientCalls) && a.Completion == c.Completion {
					t.Fatalf("seeds 42 and 43 gave the same run: the seed is not used")
				}
			})
		}
	}
}

// The library's BackOffs draw from math/rand/v2 unless told otherwise;
// Simulate must replace that source for runs to repeat, and do it per
// client, so that clients do not all draw the same numbers.
func TestSimulateSeedsEachClient(t *testing.T) {
	t.Parallel()
	var made []*backoff.ExponentialBackOff
	cfg := herd.Config{Scenario: herd.OCC, Clients: 2, Seed: 7, NewBackOff: func() backoff.BackOff {
		b := backoff.NewExponentialBackOff()
		b.Jitter = backoff.FullJitter
		b.Random = func() float64 { return 1 } // replaced by Simulate
		made = append(made, b)
		return b
	}}
	mustSimulate(t, cfg)
	a, b := made[0].NextBackOff(), made[1].NextBackOff()
	if a == b {
		t.Fatalf("two clients drew the same full-jitter wait %v: they share a random source", a)
	}
	if nominal := made[0].InitialInterval; a == nominal && b == nominal {
		t.Fatalf("the BackOff's own random source was kept")
	}
}

// With no variance in network delays, a herd without jitter stays in
// lockstep: every call lands in a window together with the call of every
// client still trying, so the non-empty windows hold N, N-1, …, 1 calls in
// OCC (one winner per round) and N, N-C, … in Restart.
func TestNoJitterHerdStaysInLockstep(t *testing.T) {
	t.Parallel()
	const n, capacity = 30, 4
	for _, sc := range fleetScenarios {
		t.Run(string(sc), func(t *testing.T) {
			t.Parallel()
			cfg := herd.Config{Scenario: sc, Clients: n, Capacity: capacity, Delay: noVariance, Seed: 1,
				NewBackOff: herd.NoJitter(herd.DefaultBase, herd.DefaultCap)}
			r := mustSimulate(t, cfg)
			winners := 1
			if sc == herd.Restart {
				winners = capacity
			}
			var want []int
			for left := n; left > 0; left -= winners {
				want = append(want, left)
			}
			if got := nonEmpty(r.Load); !slices.Equal(got, want) {
				t.Fatalf("calls per non-empty window = %v, want the whole remaining herd each time: %v", got, want)
			}

			// Jitter breaks the lockstep on the same network.
			cfg.NewBackOff = herd.FullJitter(herd.DefaultBase, herd.DefaultCap)
			if got := nonEmpty(mustSimulate(t, cfg).Load); slices.Equal(got, want) {
				t.Fatalf("full jitter stayed in lockstep: %v", got)
			}
		})
	}
}

func nonEmpty(load []int) []int {
	var out []int
	for _, n := range load {
		if n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// The conclusions of the AWS study, checked as properties of the OCC
// scenario at 100 clients, averaged over a few seeds: full jitter does less
// than half the work of exponential backoff without jitter, and no jitter
// is the slowest of all strategies to complete.
func TestOCCReproducesTheStudy(t *testing.T) {
	t.Parallel()
	const seeds = 5
	calls := map[string]int{}
	completion := map[string]time.Duration{}
	for _, st := range strategies() {
		for seed := range uint64(seeds) {
			cfg := herd.Config{Scenario: herd.OCC, Clients: 100, NewBackOff: st.NewBackOff, Seed: seed}
			r := mustSimulate(t, cfg)
			if r.Succeeded != r.Clients {
				t.Fatalf("%s, seed %d: %d of %d clients succeeded", st.Name, seed, r.Succeeded, r.Clients)
			}
			calls[st.Name] += r.Calls
			completion[st.Name] += r.Completion
		}
	}
	if full, none := calls["full"], calls["no-jitter"]; 2*full >= none {
		t.Errorf("full jitter made %d calls over %d seeds, no jitter %d: not less than half", full, seeds, none)
	}
	for name, c := range completion {
		if name != "no-jitter" && c >= completion["no-jitter"] {
			t.Errorf("%s took %v in total over %d seeds, no jitter %v: no jitter should be the slowest", name, c, seeds, completion["no-jitter"])
		}
	}
}

func TestRestartRespectsCapacity(t *testing.T) {
	t.Parallel()
	for _, capacity := range []int{1, 7, 50} {
		cfg := herd.Config{Scenario: herd.Restart, Clients: 300, Capacity: capacity, NewBackOff: herd.Immediate(), Seed: 3}
		r := mustSimulate(t, cfg)
		checkInvariants(t, cfg, r)
		if r.Succeeded != r.Clients {
			t.Fatalf("capacity %d: %d of %d reconnected", capacity, r.Succeeded, r.Clients)
		}
		// At most capacity connections are accepted per window, so the
		// last is accepted no earlier than this.
		lower := time.Duration((r.Clients+capacity-1)/capacity-1) * r.Window
		if r.Completion < lower {
			t.Fatalf("capacity %d: all reconnected by %v, before %v", capacity, r.Completion, lower)
		}
	}
}

func TestMaxCallsEndsImmediateRetry(t *testing.T) {
	t.Parallel()
	cfg := herd.Config{Scenario: herd.OCC, Clients: 50, MaxCalls: 3, NewBackOff: herd.Immediate(), Seed: 1}
	r := mustSimulate(t, cfg)
	checkInvariants(t, cfg, r)
	if r.GaveUp == 0 {
		t.Fatalf("no client gave up after 3 calls among 50 contending clients")
	}
	if r.Calls > cfg.Clients*cfg.MaxCalls {
		t.Fatalf("%d calls, over Clients × MaxCalls", r.Calls)
	}
}

func TestStopMakesClientsGiveUp(t *testing.T) {
	t.Parallel()
	cfg := herd.Config{Scenario: herd.Restart, Clients: 100, Capacity: 5, Seed: 1,
		NewBackOff: func() backoff.BackOff { return &backoff.StopBackOff{} }}
	r := mustSimulate(t, cfg)
	checkInvariants(t, cfg, r)
	if r.Calls != r.Clients || r.Succeeded == 0 || r.GaveUp != r.Clients-r.Succeeded {
		t.Fatalf("StopBackOff: %d calls, %d succeeded, %d gave up; want one call each and the rest giving up", r.Calls, r.Succeeded, r.GaveUp)
	}
}

func TestHorizonStopsTheSimulation(t *testing.T) {
	t.Parallel()
	cfg := herd.Config{Scenario: herd.OCC, Clients: 200, Horizon: 500 * time.Millisecond, Seed: 1,
		NewBackOff: herd.NoJitter(herd.DefaultBase, herd.DefaultCap)}
	r := mustSimulate(t, cfg)
	checkInvariants(t, cfg, r)
	if r.Unfinished() == 0 || r.Completion != cfg.Horizon {
		t.Fatalf("at a 500ms horizon: %d unfinished, completion %v", r.Unfinished(), r.Completion)
	}
	if got := time.Duration(len(r.Load)) * r.Window; got > cfg.Horizon+r.Window {
		t.Fatalf("the timeline runs to %v, past the horizon", got)
	}
}

// countingBackOff records how Simulate drives a BackOff.
type countingBackOff struct {
	resets, nexts   int
	nextBeforeReset bool
}

func (p *countingBackOff) Reset() { p.resets++ }

func (p *countingBackOff) NextBackOff() time.Duration {
	if p.resets == 0 {
		p.nextBeforeReset = true
	}
	p.nexts++
	return time.Duration(p.nexts) * time.Millisecond
}

func TestPolicyDrivenThroughTheInterface(t *testing.T) {
	t.Parallel()
	var backOffs []*countingBackOff
	cfg := herd.Config{Scenario: herd.OCC, Clients: 40, Seed: 1, NewBackOff: func() backoff.BackOff {
		p := &countingBackOff{}
		backOffs = append(backOffs, p)
		return p
	}}
	r := mustSimulate(t, cfg)
	checkInvariants(t, cfg, r)
	if len(backOffs) != cfg.Clients {
		t.Fatalf("NewBackOff called %d times for %d clients", len(backOffs), cfg.Clients)
	}
	for i, p := range backOffs {
		if p.nexts > 0 && p.resets != 1 || p.resets > 1 || p.nextBeforeReset {
			t.Fatalf("client %d: Reset called %d times (before NextBackOff: %v), want once, before the first retry", i, p.resets, !p.nextBeforeReset)
		}
		// Every failed call but a final one is followed by one NextBackOff.
		if p.nexts != r.ClientCalls[i]-1 {
			t.Fatalf("client %d: %d calls but %d NextBackOff", i, r.ClientCalls[i], p.nexts)
		}
	}
}

func TestSimulateIsSafeConcurrently(t *testing.T) {
	t.Parallel()
	cfg := herd.Config{Scenario: herd.OCC, Clients: 100, NewBackOff: herd.FullJitter(herd.DefaultBase, herd.DefaultCap), Seed: 9}
	var wg sync.WaitGroup
	results := make([]herd.Result, 4)
	for i := range results {
		wg.Go(func() { results[i] = herd.Simulate(cfg) })
	}
	wg.Wait()
	for _, r := range results[1:] {
		if !reflect.DeepEqual(r, results[0]) {
			t.Fatal("concurrent runs of one Config differ")
		}
	}
}

func TestInvalidConfig(t *testing.T) {
	t.Parallel()
	good := herd.Config{Scenario: herd.OCC, Clients: 10, NewBackOff: herd.Immediate()}
	cases := []invalidConfig{
		{"unknown_scenario", func(c *herd.Config) { c.Scenario = "stampede" }, "Scenario"},
		{"empty_scenario", func(c *herd.Config) { c.Scenario = "" }, "Scenario"},
		{"no_clients", func(c *herd.Config) { c.Clients = 0 }, "Clients"},
		{"negative_clients", func(c *herd.Config) { c.Clients = -1 }, "Clients"},
		{"too_many_clients", func(c *herd.Config) { c.Clients = herd.MaxClients + 1 }, "Clients"},
		{"nil_backoff", func(c *herd.Config) { c.NewBackOff = nil }, "NewBackOff"},
		{"negative_delay", func(c *herd.Config) { c.Delay.Mean = -time.Millisecond }, "Delay.Mean"},
		{"negative_stddev", func(c *herd.Config) { c.Delay.StdDev = -1 }, "Delay.StdDev"},
		{"negative_window", func(c *herd.Config) { c.Window = -1 }, "Window"},
		{"negative_capacity", func(c *herd.Config) { c.Capacity = -1 }, "Capacity"},
		{"negative_max_calls", func(c *herd.Config) { c.MaxCalls = -1 }, "MaxCalls"},
		{"negative_horizon", func(c *herd.Config) { c.Horizon = -1 }, "Horizon"},
		{"too_many_windows", func(c *herd.Config) { c.Window = time.Nanosecond }, "Windows"},
		{"shed_capacity_past_the_bulkheads", func(c *herd.Config) {
			c.Scenario, c.Capacity = herd.Shed, int(int64(bulkhead.MaxCapacity)+1)
		}, "Capacity"},
	}
	testInvalidConfigs(t, good, cases)
}

// invalidConfig is an edit that makes a good Config invalid, and the
// field its error names.
type invalidConfig struct {
	name  string
	edit  func(*herd.Config)
	field string
}

// testInvalidConfigs checks that good is valid, and that each edit of it
// makes Validate return an error matching ErrInvalidConfig that names the
// edit's field, and Simulate report one before any call.
func testInvalidConfigs(t *testing.T, good herd.Config, cases []invalidConfig) {
	t.Helper()
	if err := good.Validate(); err != nil {
		t.Fatalf("Validate of a good Config: %v", err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := good
			tc.edit(&cfg)
			err := cfg.Validate()
			if !isInvalidConfig(err) || !containsWord(err.Error(), tc.field) {
				t.Fatalf("Validate = %v, want ErrInvalidConfig naming %s", err, tc.field)
			}
			if r := herd.Simulate(cfg); !isInvalidConfig(r.Err) || r.Calls != 0 {
				t.Fatalf("Simulate: Err %v after %d calls, want ErrInvalidConfig before any", r.Err, r.Calls)
			}
		})
	}
}

// isInvalidConfig reports whether err matches ErrInvalidConfig and, as
// every error of a setting must, backoff.ErrInvalidConfiguration.
func isInvalidConfig(err error) bool {
	return errors.Is(err, herd.ErrInvalidConfig) && errors.Is(err, backoff.ErrInvalidConfiguration)
}

func containsWord(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i:i+len(w)] == w {
			return true
		}
	}
	return false
}

// negativeBackOff returns a negative wait that is not backoff.Stop.
type negativeBackOff struct{}

func (negativeBackOff) NextBackOff() time.Duration { return -5 * time.Second }
func (negativeBackOff) Reset()                     {}

func TestInvalidPolicy(t *testing.T) {
	t.Parallel()
	shared := backoff.NewExponentialBackOff()
	cases := []struct {
		name    string
		backOff func() backoff.BackOff
		also    error
	}{
		{"nil", func() backoff.BackOff { return nil }, nil},
		{"shared", func() backoff.BackOff { return shared }, nil},
		{"multiplier_below_one", func() backoff.BackOff { return backoff.NewExponentialBackOff(backoff.WithMultiplier(0.5)) }, backoff.ErrInvalidConfiguration},
		{"negative_base", herd.NoJitter(-time.Millisecond, time.Second), backoff.ErrInvalidConfiguration},
		{"negative_wait", func() backoff.BackOff { return negativeBackOff{} }, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := herd.Simulate(herd.Config{Scenario: herd.OCC, Clients: 5, NewBackOff: tc.backOff})
			if !errors.Is(r.Err, herd.ErrInvalidBackOff) || errors.Is(r.Err, herd.ErrInvalidConfig) {
				t.Fatalf("Err = %v, want ErrInvalidBackOff, not ErrInvalidConfig", r.Err)
			}
			if tc.also != nil && !errors.Is(r.Err, tc.also) {
				t.Fatalf("Err = %v, want it to match %v as well", r.Err, tc.also)
			}
		})
	}
}

// Completion is when the last client to succeed did so: a client that gives
// up later does not move it. Here, on a network without variance, client 0
// wins the first round at 40 ms; client 1 retries at once and wins at 80 ms;
// client 2 retries 5 ms later, reads the version client 1 is about to
// change, fails, and gives up at 85 ms on reaching MaxCalls.
func TestCompletionIsTheLastSuccess(t *testing.T) {
	t.Parallel()
	made := 0
	cfg := herd.Config{Scenario: herd.OCC, Clients: 3, Delay: noVariance, MaxCalls: 2, Seed: 1,
		NewBackOff: func() backoff.BackOff {
			made++
			if made == 3 {
				return backoff.NewConstantBackOff(5 * time.Millisecond)
			}
			return &backoff.ZeroBackOff{}
		}}
	r := mustSimulate(t, cfg)
	checkInvariants(t, cfg, r)
	if r.Succeeded != 2 || r.GaveUp != 1 {
		t.Fatalf("%d succeeded, %d gave up; want 2 and 1", r.Succeeded, r.GaveUp)
	}
	if r.Completion != 80*time.Millisecond {
		t.Fatalf("Completion = %v, want 80ms, the last success (the give-up at 85ms does not count)", r.Completion)
	}
}

// The first wave does not land in one window when the network delays vary,
// so the peak load can be smaller than the fleet; on a network without
// variance it is the whole fleet.
func TestPeakLoadOfTheFirstWave(t *testing.T) {
	t.Parallel()
	cfg := herd.Config{Scenario: herd.Restart, Clients: 100, Seed: 1, NewBackOff: herd.FullJitter(herd.DefaultBase, herd.DefaultCap)}
	if r := mustSimulate(t, cfg); r.PeakLoad >= r.Clients {
		t.Fatalf("varying delays: PeakLoad %d, want fewer than the %d clients", r.PeakLoad, r.Clients)
	}
	cfg.Delay = noVariance
	if r := mustSimulate(t, cfg); r.PeakLoad != r.Clients {
		t.Fatalf("no variance: PeakLoad %d, want all %d clients in one window", r.PeakLoad, r.Clients)
	}
}
