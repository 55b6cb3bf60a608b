package herd_test

import (
	"testing"

	"github.com/herdsafe/backoff/herd"
)

// A server whose service times have a tail has a no-load p99 well above
// its no-load mean; the steady model's is a few percent above it.
func TestRealisticServerNoLoadP99(t *testing.T) {
	t.Parallel()
	d := herd.Delay{Mean: herd.DefaultDelayMean, StdDev: herd.DefaultDelayStdDev}
	steady, real := herd.SteadyServer(), herd.Server{}
	if x := float64(steady.NoLoadP99(d)) / float64(steady.NoLoad(d)); x < 1 || x > 1.3 {
		t.Errorf("the steady server's no-load p99 is %.2f× its no-load mean, want about 1.1", x)
	}
	if x := float64(real.NoLoadP99(d)) / float64(real.NoLoad(d)); x < 2 || x > 4 {
		t.Errorf("the realistic server's no-load p99 is %.2f× its no-load mean, want about 3", x)
	}
	if real.Capacity() != steady.Capacity() || real.NoLoad(d) != steady.NoLoad(d) {
		t.Errorf("the realistic server's capacity or no-load mean differ: %v %v", real.Capacity(), real.NoLoad(d))
	}
}

// serverPolicies runs the small Overload with no guard on server s,
// shortStages, Poisson arrivals and lognormal service times.
func serverPolicies(t *testing.T, q herd.Queue) herd.StageResult {
	t.Helper()
	s := herd.Server{Workers: 20, Stages: shortStages, Queue: q}
	res := herd.Simulate(herd.Config{Scenario: herd.Overload, Clients: 4, Seed: 3, Server: s})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	return res.Overload.Measured
}

// The server's own policies keep a server without client guards useful
// under overload: a bounded queue refuses what it cannot serve in time,
// LIFO serves the callers that still wait, and dropping the calls whose
// callers gave up or cannot be answered in time spends no worker on
// them; the unbounded FIFO queue serves almost nothing in time.
func TestOverloadServerPolicies(t *testing.T) {
	t.Parallel()
	fifo := serverPolicies(t, herd.Queue{})
	if fifo.Goodput > 0.2 || fifo.ServerRefused != 0 {
		t.Fatalf("FIFO without bound: goodput %.3f, %d refused; want the collapse", fifo.Goodput, fifo.ServerRefused)
	}
	for name, q := range map[string]herd.Queue{
		"bounded": {Limit: 100}, "lifo": {LIFO: true}, "drop-expired": {DropExpired: true},
	} {
		m := serverPolicies(t, q)
		if m.Goodput < 0.8 {
			t.Errorf("%s: goodput %.3f, want 0.8 at least (FIFO: %.3f)", name, m.Goodput, fifo.Goodput)
		}
		if refuses := name != "lifo"; (m.ServerRefused > 0) != refuses {
			t.Errorf("%s: %d calls refused by the server", name, m.ServerRefused)
		}
	}
}

// Poisson arrivals start the stages' calls at their rate, at random
// moments, the same for the same seed.
func TestOverloadPoissonArrivals(t *testing.T) {
	t.Parallel()
	cfg := herd.Config{Scenario: herd.Overload, Clients: 2, Seed: 5, Server: herd.Server{Workers: 20, Stages: shortStages}}
	a, b := herd.Simulate(cfg), herd.Simulate(cfg)
	even := cfg
	even.Server.Arrivals = herd.Even
	e := herd.Simulate(even)
	if a.Err != nil || e.Err != nil || a.Calls != b.Calls {
		t.Fatalf("%v %v; %d and %d calls from one seed", a.Err, e.Err, a.Calls, b.Calls)
	}
	if r := float64(a.Calls) / float64(e.Calls); r < 0.97 || r > 1.03 {
		t.Errorf("Poisson arrivals started %d calls, even ones %d", a.Calls, e.Calls)
	}
	if a.PeakLoad <= e.PeakLoad {
		t.Errorf("Poisson arrivals' busiest window (%d) is no busier than even ones' (%d)", a.PeakLoad, e.PeakLoad)
	}
}
