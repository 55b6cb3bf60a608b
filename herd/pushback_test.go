package herd_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/herd"
)

// shedRun simulates n clients of the full-jitter strategy against the
// server of sc, once for all the tests that look at the same run (see
// sharedRun).
func shedRun(t *testing.T, sc herd.Scenario, n int) herd.Result {
	t.Helper()
	full := herd.Strategies(herd.DefaultBase, herd.DefaultCap)[1]
	return sharedRun(t, fmt.Sprintf("%s/full/%d", sc, n), herd.Config{Scenario: sc, Clients: n, NewBackOff: full.NewBackOff, Seed: 1})
}

// The loop closed: against a server that tells the requests it sheds when
// to come back, clients of httpretry make far fewer calls, and the load
// after the first wave stays far lower, than against the same server
// shedding with a bare 503; every client succeeds either way. A thousand
// clients are the smallest of the simulator guide's fleets where it holds: at 100,
// told to wait a second or more, the herd still makes more than a third of
// the calls (190 against 335), for want of waves to break. (The tests of
// cmd/herd check the figures of docs/simulator.md, at 10,000 clients too.)
func TestPushbackLightensTheLoad(t *testing.T) {
	t.Parallel()
	const n = 1000
	shed, push := shedRun(t, herd.Shed, n), shedRun(t, herd.Pushback, n)
	if shed.Succeeded != n || push.Succeeded != n {
		t.Fatalf("%d clients: %d and %d succeeded; want all", n, shed.Succeeded, push.Succeeded)
	}
	if push.Calls*3 > shed.Calls {
		t.Errorf("%d clients: %d calls with Retry-After, %d without; want a third at most", n, push.Calls, shed.Calls)
	}
	if p, s := afterFirstWave(push), afterFirstWave(shed); p*4 > s {
		t.Errorf("%d clients: the busiest window after the first wave has %d calls with Retry-After, %d without; want a quarter at most", n, p, s)
	}
}

// afterFirstWave is the busiest window of r from 50 ms on, by when every
// client's first call has arrived.
func afterFirstWave(r herd.Result) int {
	peak := 0
	for i, v := range r.Load {
		if i >= 5 {
			peak = max(peak, v)
		}
	}
	return peak
}

// The server is the Shedder over a bulkhead: a client alone is served at
// once, and Capacity clients are all served on their first call.
func TestShedServerCapacity(t *testing.T) {
	t.Parallel()
	for _, sc := range []herd.Scenario{herd.Shed, herd.Pushback} {
		if r := shedRun(t, sc, 1); r.Calls != 1 || r.Succeeded != 1 {
			t.Errorf("%s, one client: %d calls, %d succeeded; want 1 and 1", sc, r.Calls, r.Succeeded)
		}
		r := mustSimulate(t, herd.Config{Scenario: sc, Clients: 50, Capacity: 50, NewBackOff: herd.Immediate(), Seed: 3})
		if r.Calls != 50 || r.Succeeded != 50 {
			t.Errorf("%s, 50 clients and 50 slots: %d calls, %d succeeded; want 50 and 50", sc, r.Calls, r.Succeeded)
		}
	}
}

// Told to come back in a second or two, every client waits at least that:
// with a BackOff that retries at once, a refused client still makes no
// second call in the first second, in Pushback, where in Shed it does.
func TestPushbackClientsWaitWhatTheyAreTold(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sc    herd.Scenario
		early bool
	}{{herd.Shed, true}, {herd.Pushback, false}} {
		r := mustSimulate(t, herd.Config{Scenario: c.sc, Clients: 100, NewBackOff: herd.Immediate(), Seed: 2})
		early := 0
		for i, v := range r.Load {
			if i >= 5 && i < 100 { // from 50 ms, past the first wave, to 1 s
				early += v
			}
		}
		if (early > 0) != c.early {
			t.Errorf("%s: %d calls between 50 ms and 1 s", c.sc, early)
		}
	}
}

// Every strategy keeps the invariants of a fleet of one-success clients,
// and the same Config gives the same Result, another seed another.
func TestShedInvariants(t *testing.T) {
	t.Parallel()
	for _, sc := range []herd.Scenario{herd.Shed, herd.Pushback} {
		for _, st := range strategies() {
			for _, n := range []int{1, 2, 37} {
				for seed := range uint64(3) {
					cfg := herd.Config{Scenario: sc, Clients: n, Capacity: 3, NewBackOff: st.NewBackOff, Seed: seed, MaxCalls: 50}
					r := mustSimulate(t, cfg)
					checkInvariants(t, cfg, r)
					if r.Unfinished() != 0 {
						t.Errorf("%s/%s/%d: %d clients unfinished", sc, st.Name, n, r.Unfinished())
					}
				}
			}
			cfg := herd.Config{Scenario: sc, Clients: 100, NewBackOff: st.NewBackOff, Seed: 42}
			a, b := mustSimulate(t, cfg), mustSimulate(t, cfg)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s/%s: two runs with seed 42 differ", sc, st.Name)
			}
			cfg.Seed = 43
			if c := mustSimulate(t, cfg); reflect.DeepEqual(a.ClientCalls, c.ClientCalls) && a.Completion == c.Completion {
				t.Errorf("%s/%s: seeds 42 and 43 gave the same run", sc, st.Name)
			}
		}
	}
}

// A capacity the bulkhead cannot have is an invalid Config, and a BackOff
// that misbehaves is reported as in Restart.
func TestPushbackBadInput(t *testing.T) {
	t.Parallel()
	big := herd.Config{Scenario: herd.Pushback, Clients: 2, Capacity: math.MaxInt32 + 1, NewBackOff: herd.Immediate()}
	if err := big.Validate(); !isInvalidConfig(err) || !strings.Contains(err.Error(), "herd: Capacity is 2147483648") {
		t.Errorf("Validate of a capacity past bulkhead.MaxCapacity: %v; want ErrInvalidConfig naming Capacity", err)
	}
	if r := herd.Simulate(big); !isInvalidConfig(r.Err) || r.Calls != 0 {
		t.Errorf("a capacity past bulkhead.MaxCapacity: %v after %d calls; want ErrInvalidConfig before any", r.Err, r.Calls)
	}
	r := herd.Simulate(herd.Config{Scenario: herd.Shed, Clients: 20, Capacity: 1,
		NewBackOff: func() backoff.BackOff { return negativeBackOff{} }})
	if !errors.Is(r.Err, herd.ErrInvalidBackOff) {
		t.Errorf("a negative wait: %v; want ErrInvalidBackOff", r.Err)
	}
	if r := herd.Simulate(herd.Config{Scenario: "pushbak", Clients: 1, NewBackOff: herd.Immediate()}); !isInvalidConfig(r.Err) {
		t.Errorf("an unknown scenario: %v", r.Err)
	}
}
