package herd_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/herd"
	"github.com/herdsafe/backoff/limiter"
)

// shortStages are the default stages, shortened for a test.
var shortStages = []herd.Stage{
	{Name: "warmup", Duration: 2 * time.Second, Load: 0.5, Capacity: 1},
	{Name: "overload", Duration: 4 * time.Second, Load: 2, Capacity: 1},
	{Name: "capacity-down", Duration: 4 * time.Second, Load: 2, Capacity: 0.5},
	{Name: "capacity-up", Duration: 4 * time.Second, Load: 2, Capacity: 1},
}

// steadyServer is herd.SteadyServer with workers and stages: the
// figures these tests hold are those of the steady model, which the
// realistic default's are compared against in overload_server_test.go.
func steadyServer(workers int, stages []herd.Stage) herd.Server {
	s := herd.SteadyServer()
	s.Workers, s.Stages = workers, stages
	return s
}

// smallOverload is an Overload of four clients against a server of 20
// workers (1,000 calls a second) over shortStages: 10 calls in flight per
// client keep it full.
func smallOverload(seed uint64) herd.Config {
	return herd.Config{Scenario: herd.Overload, Clients: 4, Seed: seed,
		Server: steadyServer(20, shortStages)}
}

// figuresOverload is the default Overload at a tenth of its size, over
// shortStages: one client against a server of 20 workers (1,000 calls a
// second), 40 calls in flight per client at full capacity, as in the
// command's run of ten clients against 200 workers. (Over the default
// stages, five times as long, the figures are the same or better: the
// limiters' transients weigh less.)
func figuresOverload(seed uint64) herd.Config {
	return herd.Config{Scenario: herd.Overload, Clients: 1, Seed: seed, Server: steadyServer(20, shortStages)}
}

// overloadStrategy returns the strategy of OverloadStrategies for cfg
// named name.
func overloadStrategy(t *testing.T, cfg herd.Config, name string) herd.Strategy {
	t.Helper()
	for _, st := range herd.OverloadStrategies(cfg) {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no overload strategy %q", name)
	return herd.Strategy{}
}

// simulateOverload runs cfg with the guards of the strategy named name,
// and checks the counts add up.
func simulateOverload(t *testing.T, cfg herd.Config, name string) herd.Result {
	t.Helper()
	cfg.NewGuards = overloadStrategy(t, cfg, name).NewGuards
	r := mustSimulate(t, cfg)
	checkOverload(t, cfg, r)
	return r
}

// checkOverload asserts what every Overload Result must satisfy: each
// stage started its share of the evenly spaced calls, every call sent
// ended once, answered or given up, and the timelines cover the stages.
func checkOverload(t *testing.T, cfg herd.Config, r herd.Result) {
	t.Helper()
	o := r.Overload
	sum := func(s []int) (n int) {
		for _, v := range s {
			n += v
		}
		return n
	}
	stages := cfg.Server.Stages
	if stages == nil {
		stages = herd.DefaultStages()
	}
	var started, refused, ended int
	var end time.Duration
	for i, st := range o.Stages {
		want := int(math.Round(st.Duration.Seconds() * st.Load * o.Capacity))
		if st.Started != want {
			t.Errorf("stage %s: %d calls started, want %d", st.Name, st.Started, want)
		}
		if st.Stage != stages[i] || st.P50 > st.P99 || st.Goodput < 0 || st.Goodput > 1.05 {
			t.Errorf("stage %d: %+v", i, st)
		}
		started += st.Started
		refused += st.Refused
		ended += st.Succeeded + st.TimedOut
		end += st.Duration
	}
	m := o.Measured
	switch {
	case ended != started-refused || r.Calls != started-refused:
		t.Errorf("%d started, %d refused, %d sent, %d ended", started, refused, r.Calls, ended)
	case sum(r.Load) != r.Calls || sum(r.ClientCalls) != r.Calls:
		t.Errorf("Load sums to %d, ClientCalls to %d; Calls is %d", sum(r.Load), sum(r.ClientCalls), r.Calls)
	case sum(o.Succeeded) != m.Succeeded+o.Stages[0].Succeeded:
		t.Errorf("Succeeded sums to %d, the stages' to %d", sum(o.Succeeded), m.Succeeded+o.Stages[0].Succeeded)
	case len(o.Limit) != int(end/r.Window):
		t.Errorf("%d windows of Limit, want %d", len(o.Limit), end/r.Window)
	case o.NoLoad != 2*herd.DefaultDelayMean+herd.DefaultServiceMean || o.Bin != 10*r.Window:
		t.Errorf("NoLoad %v, Bin %v", o.NoLoad, o.Bin)
	}
}

// The figures the scenario exists for: without a guard the queue grows
// past the timeout and almost nothing is served in time; a bulkhead set
// for the healthy server serves at capacity until half of it is lost,
// when its calls wait twice as long; the adaptive limiter, on either
// rule, serves at least 90% of the capacity with a p99 within twice the
// no-load latency, and finds each new limit within a second or two.
func TestOverloadFigures(t *testing.T) {
	t.Parallel()
	t.Run("none", func(t *testing.T) {
		t.Parallel()
		// The queue passes the timeout within a second: the short stages
		// show it.
		o := simulateOverload(t, smallOverload(1), "none").Overload
		if m := o.Measured; m.Goodput > 0.2 || m.P99 != herd.DefaultTimeout || m.TimedOut < m.Started/2 || o.Adaptive {
			t.Errorf("none: %+v", m)
		}
	})
	t.Run("bulkhead", func(t *testing.T) {
		t.Parallel()
		o := simulateOverload(t, figuresOverload(1), "bulkhead").Overload
		if m := o.Measured; m.Goodput < 0.9 || m.TimedOut != 0 || o.Stages[2].P99X(o.NoLoad) < 1.9 || o.Adaptive {
			t.Errorf("bulkhead: %+v; capacity-down %+v", m, o.Stages[2])
		}
	})
	for _, name := range []string{"adaptive-gradient", "adaptive-vegas"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := simulateOverload(t, figuresOverload(1), name).Overload
			m := o.Measured
			if m.Goodput < 0.9 || m.P99X(o.NoLoad) > 2 || m.TimedOut != 0 || !o.Adaptive {
				t.Errorf("goodput %.3f, p99 %.2f× the no-load latency, %d timed out", m.Goodput, m.P99X(o.NoLoad), m.TimedOut)
			}
			for _, st := range o.Stages[1:] {
				if !st.Settled || st.Settle > 2*time.Second {
					t.Errorf("after the step to %s the limit settled in %v (%v)", st.Name, st.Settle, st.Settled)
				}
			}
		})
	}
}

// The same Config gives the same Result; another seed another.
func TestOverloadIsRepeatable(t *testing.T) {
	t.Parallel()
	cfg := smallOverload(7)
	cfg.Server.Stages = shortStages[:2]
	a := simulateOverload(t, cfg, "adaptive-vegas")
	b := simulateOverload(t, cfg, "adaptive-vegas")
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs of one Config differ")
	}
	cfg.Seed = 8
	if c := simulateOverload(t, cfg, "adaptive-vegas"); reflect.DeepEqual(a.Overload.P99, c.Overload.P99) {
		t.Fatal("seeds 7 and 8 gave the same latencies")
	}
}

// countingGuard counts the calls of the guard it wraps.
type countingGuard struct {
	guard.Guard
	allows, records int
}

func (g *countingGuard) Allow(ctx context.Context, c guard.Call) (guard.Permit, error) {
	g.allows++
	return g.Guard.Allow(ctx, c)
}

func (g *countingGuard) Record(p guard.Permit, o guard.Outcome) {
	g.records++
	g.Guard.Record(p, o)
}

// The simulation drives the real limiter, on its virtual clock: each call
// started is asked of it, each call it admitted recorded once, its limit
// is the fleet's, and a ceiling it is given bounds what the fleet sends.
func TestOverloadDrivesTheLimiter(t *testing.T) {
	t.Parallel()
	cfg := smallOverload(1)
	var limiters []*limiter.Limiter
	var counts []*countingGuard
	cfg.NewGuards = func(clk clock.Clock, _ func() float64) []guard.Guard {
		l := limiter.New(limiter.WithClock(clk), limiter.WithCeiling(3))
		g := &countingGuard{Guard: l}
		limiters, counts = append(limiters, l), append(counts, g)
		return []guard.Guard{g}
	}
	r := mustSimulate(t, cfg)
	checkOverload(t, cfg, r)
	allows, records := 0, 0
	for i, l := range limiters {
		allows, records = allows+counts[i].allows, records+counts[i].records
		if s := l.Stats(); s.InFlight != 0 || s.Limit > 3 || s.Latency == 0 || s.NoLoadLatency == 0 {
			t.Errorf("limiter %d after the run: %+v", i, s)
		}
	}
	var started, refused int
	for _, st := range r.Overload.Stages {
		started, refused = started+st.Started, refused+st.Refused
	}
	if allows != started || records != r.Calls || records != started-refused {
		t.Errorf("%d Allows and %d Records for %d calls started, %d sent", allows, records, started, r.Calls)
	}
	// Four clients of 3 calls in flight at most, of about 40 ms each: 300
	// calls a second, of a capacity of 1,000.
	if g := r.Overload.Stages[1].Goodput; g > 0.35 || g < 0.2 {
		t.Errorf("a ceiling of 3 per client: goodput %.3f of the capacity, want about 0.3", g)
	}
	for i, n := range r.Overload.Limit {
		if n > 12 {
			t.Fatalf("window %d: the fleet's limit is %d, above 4 × 3", i, n)
		}
	}
}

func TestOverloadServer(t *testing.T) {
	t.Parallel()
	var s herd.Server
	if s.Capacity() != 10000 || s.NoLoad(herd.Delay{}) != 40*time.Millisecond || s.HealthyConcurrency(10, herd.Delay{}) != 40 {
		t.Errorf("the default server: %v calls/s, no-load %v, %d per client of 10",
			s.Capacity(), s.NoLoad(herd.Delay{}), s.HealthyConcurrency(10, herd.Delay{}))
	}
	s = herd.Server{Workers: 20, Service: herd.Delay{Mean: 50 * time.Millisecond}}
	if s.Capacity() != 400 || s.NoLoad(herd.Delay{Mean: 5 * time.Millisecond}) != 60*time.Millisecond || s.HealthyConcurrency(7, herd.Delay{Mean: 5 * time.Millisecond}) != 4 {
		t.Errorf("a server of 20 workers of 50 ms: %v calls/s, %d per client of 7", s.Capacity(), s.HealthyConcurrency(7, herd.Delay{Mean: 5 * time.Millisecond}))
	}
	if got := len(herd.DefaultStages()); got != 4 {
		t.Errorf("%d default stages", got)
	}
}

func TestOverloadInvalidConfig(t *testing.T) {
	t.Parallel()
	good := smallOverload(1)
	stage := func(i int, edit func(*herd.Stage)) func(*herd.Config) {
		return func(c *herd.Config) {
			c.Server.Stages = append([]herd.Stage(nil), c.Server.Stages...)
			edit(&c.Server.Stages[i])
		}
	}
	cases := []invalidConfig{
		{"negative_workers", func(c *herd.Config) { c.Server.Workers = -1 }, "Server.Workers"},
		{"too_many_workers", func(c *herd.Config) { c.Server.Workers = herd.MaxWorkers + 1 }, "Server.Workers"},
		{"negative_service", func(c *herd.Config) { c.Server.Service = herd.Delay{Mean: -time.Millisecond} }, "Server.Service"},
		{"negative_deviation", func(c *herd.Config) { c.Server.Service = herd.Delay{Mean: time.Millisecond, StdDev: -1} }, "Server.Service"},
		{"negative_timeout", func(c *herd.Config) { c.Server.Timeout = -time.Second }, "Server.Timeout"},
		{"no_stage", func(c *herd.Config) { c.Server.Stages = []herd.Stage{} }, "Server.Stages"},
		{"empty_stage", stage(1, func(s *herd.Stage) { s.Duration = 0 }), "Server.Stages"},
		{"zero_load", stage(1, func(s *herd.Stage) { s.Load = 0 }), "Load"},
		{"nan_load", stage(1, func(s *herd.Stage) { s.Load = math.NaN() }), "Load"},
		{"infinite_load", stage(1, func(s *herd.Stage) { s.Load = math.Inf(1) }), "Load"},
		{"zero_capacity", stage(2, func(s *herd.Stage) { s.Capacity = 0 }), "Capacity"},
		{"capacity_above_one", stage(2, func(s *herd.Stage) { s.Capacity = 1.5 }), "Capacity"},
		{"nan_capacity", stage(2, func(s *herd.Stage) { s.Capacity = math.NaN() }), "Capacity"},
		{"longer_than_the_horizon", func(c *herd.Config) { c.Horizon = 5 * time.Second }, "Horizon"},
		{"too_many_calls", stage(1, func(s *herd.Stage) { s.Load = 1e9 }), "calls"},
		{"no_clients", func(c *herd.Config) { c.Clients = 0 }, "Clients"},
	}
	testInvalidConfigs(t, good, cases)
}

// A nil guard, or one that fails its own Validate, is reported before
// any call.
func TestOverloadInvalidGuards(t *testing.T) {
	t.Parallel()
	for _, gs := range [][]guard.Guard{{nil}, {limiter.New(limiter.WithFloor(0))}} {
		cfg := smallOverload(1)
		cfg.NewGuards = func(clock.Clock, func() float64) []guard.Guard { return gs }
		if r := herd.Simulate(cfg); !errors.Is(r.Err, herd.ErrInvalidBackOff) || r.Calls != 0 {
			t.Errorf("guards %v: Err %v after %d calls", gs, r.Err, r.Calls)
		}
	}
}

// SimulateContext stops an Overload when its context is done.
func TestOverloadStopsOnCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := smallOverload(1)
	if r := herd.SimulateContext(ctx, cfg); !errors.Is(r.Err, context.Canceled) {
		t.Fatalf("Err = %v", r.Err)
	}
}
