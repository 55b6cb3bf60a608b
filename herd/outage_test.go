package herd_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/herd"
	"github.com/herdsafe/backoff/policy"
)

// shortPhases are long enough for the ratio budget's 10 s window to fill
// before the outage, and short enough for a test.
var shortPhases = herd.Phases{Warmup: 11 * time.Second, Down: 10 * time.Second, Degraded: 4 * time.Second,
	Healthy: 5 * time.Second, DegradedFailures: 0.3}

// sreRun is the run of smallOutage, seed 2, on four clients, of the
// outage strategy named name (the amplification does not depend on the
// fleet's size), simulated once for the tests that look at it.
func sreRun(t *testing.T, name string) herd.Result {
	t.Helper()
	cfg := smallOutage(outageStrategy(t, name), 2)
	cfg.Clients = 4
	r := sharedRun(t, "outage/sre/"+name, cfg)
	checkOutage(t, cfg, r)
	return r
}

// smallOutage is an Outage of ten clients at 100 user calls a second each:
// one user call of the fleet per millisecond, a base load of 10 calls per
// 10 ms window.
func smallOutage(st herd.Strategy, seed uint64) herd.Config {
	return herd.Config{Scenario: herd.Outage, Clients: 10, Rate: 100, Seed: seed, Phases: shortPhases, Arrivals: herd.Even,
		NewBackOff: st.NewBackOff, NewGuards: st.NewGuards}
}

// tinyOutage is a quicker Outage still: five clients at 50 user calls a
// second over six seconds, for the properties that do not need a budget's
// window to fill.
func tinyOutage(st herd.Strategy, seed uint64) herd.Config {
	return herd.Config{Scenario: herd.Outage, Clients: 5, Rate: 50, Seed: seed, Arrivals: herd.Even,
		Phases:     herd.Phases{Warmup: 2 * time.Second, Down: 2 * time.Second, Degraded: time.Second, Healthy: time.Second, DegradedFailures: 0.3},
		NewBackOff: st.NewBackOff, NewGuards: st.NewGuards}
}

// outageStrategy returns the strategy of OutageStrategies named name.
func outageStrategy(t *testing.T, name string) herd.Strategy {
	t.Helper()
	for _, st := range herd.OutageStrategies() {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no outage strategy %q", name)
	return herd.Strategy{}
}

// checkOutage asserts what every Outage Result must satisfy: the counts
// add up, each phase started its share of the evenly spaced user calls,
// and no user call made more than its tries.
func checkOutage(t *testing.T, cfg herd.Config, r herd.Result) {
	t.Helper()
	o, total := r.Outage, r.Outage.Total()
	sum := func(s []int) (n int) {
		for _, v := range s {
			n += v
		}
		return n
	}
	durations := []time.Duration{cfg.Phases.Warmup, cfg.Phases.Down, cfg.Phases.Degraded, cfg.Phases.Healthy}
	for p, c := range o.Phases {
		want := int(math.Round(durations[p].Seconds() * float64(cfg.Clients) * cfg.Rate))
		if c.UserCalls != want {
			t.Errorf("%v: %d user calls, want %d", herd.Phase(p), c.UserCalls, want)
		}
		if c.Refused > c.UserFailed || c.UserFailed > c.UserCalls {
			t.Errorf("%v: %d refused, %d failed, %d user calls", herd.Phase(p), c.Refused, c.UserFailed, c.UserCalls)
		}
	}
	switch {
	case r.Err != nil:
		t.Errorf("Err = %v", r.Err)
	case sum(r.Load) != r.Calls || total.Calls != r.Calls || sum(r.ClientCalls) != r.Calls:
		t.Errorf("Calls %d, Load sums to %d, the phases to %d, ClientCalls to %d", r.Calls, sum(r.Load), total.Calls, sum(r.ClientCalls))
	case r.Calls > herd.DefaultTries*total.UserCalls:
		t.Errorf("%d calls for %d user calls of %d tries", r.Calls, total.UserCalls, herd.DefaultTries)
	case o.Base != float64(cfg.Clients)*cfg.Rate*herd.DefaultWindow.Seconds():
		t.Errorf("Base = %v", o.Base)
	case r.Succeeded != 0 || r.GaveUp != 0 || r.Completion != 0 || r.Unfinished() != 0:
		t.Errorf("the fields of the other scenarios are set: %d, %d, %v, %d", r.Succeeded, r.GaveUp, r.Completion, r.Unfinished())
	case !o.Recovered && o.Recovery != cfg.Phases.Healthy:
		t.Errorf("not recovered, but Recovery = %v rather than the healthy phase's %v", o.Recovery, cfg.Phases.Healthy)
	}
}

func TestOutageInvariants(t *testing.T) {
	t.Parallel()
	for _, st := range herd.OutageStrategies() {
		t.Run(st.Name, func(t *testing.T) {
			t.Parallel()
			cfg := tinyOutage(st, 1)
			r := mustSimulate(t, cfg)
			checkOutage(t, cfg, r)
			// Nothing fails while the dependency is healthy, so nothing is
			// retried or refused: every call of the warm-up is a first
			// attempt, and only its last user calls, whose retries meet
			// the outage, fail. The throttle is the exception, at its cold
			// start: until a client's first answers come back, its
			// requests outnumber twice its accepts, and it rejects some.
			w := r.Outage.Phases[herd.PhaseWarmup]
			sent := w.UserCalls
			if st.Name == "throttle" || st.Name == "combined" {
				sent = w.Calls
				if w.Calls < w.UserCalls-2*cfg.Clients {
					t.Errorf("warm-up: the throttle rejected %d first attempts at its start", w.UserCalls-w.Calls)
				}
			}
			if w.Calls != sent || w.UserFailed > 15 || float64(w.Peak) != math.Ceil(r.Outage.Base) {
				t.Errorf("warm-up: %d calls for %d user calls, %d failed, %d refused, peak %d", w.Calls, w.UserCalls, w.UserFailed, w.Refused, w.Peak)
			}
			// The dependency fails every call while it is down: only the
			// user calls of its last moments, retried after it, may
			// succeed. A user call's tries are over within half a second.
			d := r.Outage.Phases[herd.PhaseDown]
			if sure := int(float64(d.UserCalls) * (1 - 0.5/cfg.Phases.Down.Seconds())); d.UserFailed < sure {
				t.Errorf("down: %d of %d user calls failed, want %d at least", d.UserFailed, d.UserCalls, sure)
			}
			if st.NewGuards == nil && r.Outage.Total().Refused != 0 {
				t.Errorf("no guard, but %d user calls refused", r.Outage.Total().Refused)
			}
		})
	}
}

// The SRE book's analysis ("Deciding to Retry"), as properties of the
// small fleet: three tries multiply the load of a full outage by close to
// 3; a retry budget of 10% keeps it within 1.1; a ratio budget with a
// reserve adds the reserve's share; a breaker cuts it to its probes.
func TestOutageMatchesTheSREAnalysis(t *testing.T) {
	t.Parallel()
	down := map[string]float64{}
	for _, st := range herd.OutageStrategies() {
		r := sreRun(t, st.Name)
		d := r.Outage.Phases[herd.PhaseDown]
		down[st.Name] = d.Amplification()
		if st.Name == "ratio-10" && float64(d.Peak) < 2.5*r.Outage.Base {
			// The budget is spent in bursts: once the retries it allowed
			// at the start of the outage leave its 10 s window, as many
			// may be made again at once, and so on.
			t.Errorf("ratio-10: a peak of %d calls in a window while down, want the bursts of 2.5×%v at least", d.Peak, r.Outage.Base)
		}
		if st.Name == "retry" {
			// While degraded, a user call makes 1 + f + f² attempts. The
			// calls are counted when they are sent, so the degraded phase
			// also counts the retries of the outage's last user calls: a
			// few percent more.
			f := shortPhases.DegradedFailures
			if got, want := r.Outage.Phases[herd.PhaseDegraded].Amplification(), 1+f+f*f; got < want-0.03 || got > want+0.08 {
				t.Errorf("retry, degraded: amplification %.3f, want %.3f", got, want)
			}
		}
	}
	bounds := []struct {
		name   string
		lo, hi float64
	}{
		{"retry", 2.5, 3},
		{"token-bucket", 1, 1.1},
		// 10% of the requests of every window; the outage lasts one
		// window, whose start falls inside one of its tenths (the clients'
		// windows start at random offsets): a tenth more at most.
		{"ratio-10", 1, 1.1 * 1.1},
		// Finagle's defaults: 20% of the requests, plus a reserve of 10
		// retries a second, which at 100 user calls a second is 10% more,
		// and as much again of a tenth.
		{"ratio", 1.25, 1 + 0.3*1.1 + 0.01},
		// The default breaker opens after 5 failures for 60 s, longer than
		// the outage: the fleet sends nothing but its first failures.
		{"breaker", 0, 0.01},
		{"combined", 0, 0.01},
		// The throttle sheds some of the retries once the failures outweigh
		// the successes of its window.
		{"throttle", 1, down["retry"] - 0.1},
	}
	for _, b := range bounds {
		if got := down[b.name]; got < b.lo || got > b.hi {
			t.Errorf("%s: amplification while down %.3f, want it in [%.2f, %.2f]", b.name, got, b.lo, b.hi)
		}
	}
}

// With a breaker whose open duration is shorter than the outage, the load
// of the outage falls to its probes: each client sends one every open
// duration plus a round trip, 10 clients / 520 ms ≈ 19 calls a second.
func TestOutageBreakerFallsToTheProbeRate(t *testing.T) {
	t.Parallel()
	const open = 500 * time.Millisecond
	st := herd.Strategy{Name: "breaker-500ms", NewBackOff: outageStrategy(t, "retry").NewBackOff,
		NewGuards: func(clk clock.Clock, _ func() float64) []guard.Guard {
			return []guard.Guard{breaker.New(breaker.WithClock(clk), breaker.WithOpenDuration(open))}
		}}
	cfg := smallOutage(st, 3)
	r := mustSimulate(t, cfg)
	checkOutage(t, cfg, r)
	// The second half of the outage, long after the breakers tripped.
	from := int((shortPhases.Warmup + shortPhases.Down/2) / r.Window)
	to := int((shortPhases.Warmup + shortPhases.Down) / r.Window)
	calls := 0
	for _, n := range r.Load[from:to] {
		calls += n
	}
	perSecond := float64(calls) / (shortPhases.Down / 2).Seconds()
	lo, hi := float64(cfg.Clients)/(open+100*time.Millisecond).Seconds(), float64(cfg.Clients)/open.Seconds()
	if perSecond < lo || perSecond > hi {
		t.Fatalf("%.1f calls a second in the outage's second half, want the probe rate, in [%.1f, %.1f]", perSecond, lo, hi)
	}
	// As the dependency comes back, the probes succeed and the breakers
	// close: the fleet is back to normal within an open duration.
	if o := r.Outage; !o.Recovered || o.Recovery > open {
		t.Fatalf("recovery %v (recovered: %v), want within %v", o.Recovery, o.Recovered, open)
	}
}

// Retries alone are back to normal as soon as the last retries of the
// degraded phase are made; the default breaker, open for 60 s from the
// start of the outage, refuses every call to the end, and the fleet never
// is.
func TestOutageRecovery(t *testing.T) {
	t.Parallel()
	r := sreRun(t, "retry")
	if o := r.Outage; !o.Recovered || o.Recovery > 500*time.Millisecond {
		t.Errorf("retry: recovery %v (recovered: %v), want within 500ms", o.Recovery, o.Recovered)
	}
	if o := r.Outage; !o.SuccessRecovered || o.SuccessRecovery != 0 || o.Phases[herd.PhaseHealthy].FailedShare() > 0.01 {
		t.Errorf("retry: success recovery %v (recovered: %v), %.1f%% of the healthy phase's user calls failed; want every second at 99%% from the start",
			o.SuccessRecovery, o.SuccessRecovered, 100*o.Phases[herd.PhaseHealthy].FailedShare())
	}
	r = sreRun(t, "breaker")
	h := r.Outage.Phases[herd.PhaseHealthy]
	if o := r.Outage; o.Recovered || o.Recovery != shortPhases.Healthy || h.Refused != h.UserCalls || h.Calls != 0 {
		t.Errorf("breaker: recovery %v (recovered: %v), %d of %d healthy user calls refused, %d calls",
			o.Recovery, o.Recovered, h.Refused, h.UserCalls, h.Calls)
	}
	if o := r.Outage; o.SuccessRecovered || o.SuccessRecovery != shortPhases.Healthy || h.FailedShare() != 1 {
		t.Errorf("breaker: success recovery %v (recovered: %v), %.1f%% of the healthy phase's user calls failed; want all",
			o.SuccessRecovery, o.SuccessRecovered, 100*h.FailedShare())
	}
}

// A breaker that opens for 1 s lets the fleet's load back to normal as
// soon as its probes succeed, but its user calls succeed again only once
// the breakers that tripped in the degraded phase, one failure in five
// in a row, are closed: the success recovery comes after the load's.
func TestOutageSuccessRecoveryOfAShortBreaker(t *testing.T) {
	t.Parallel()
	st := mustStack(t, "breaker(open=1s,failures=3)").Strategy(herd.RetryStage)
	cfg := smallOutage(st, 7)
	cfg.Phases.Healthy = 4 * time.Second
	o := mustSimulate(t, cfg).Outage
	if !o.Recovered || !o.SuccessRecovered || o.SuccessRecovery < o.Recovery || o.SuccessRecovery > 2*time.Second {
		t.Errorf("load back to normal %v in (%v), user calls succeeding %v in (%v); want both within 2s, the calls no sooner",
			o.Recovery, o.Recovered, o.SuccessRecovery, o.SuccessRecovered)
	}
}

func TestOutageSameSeedSameResult(t *testing.T) {
	t.Parallel()
	for _, st := range herd.OutageStrategies() {
		t.Run(st.Name, func(t *testing.T) {
			t.Parallel()
			cfg := tinyOutage(st, 42)
			a, b := mustSimulate(t, cfg), mustSimulate(t, cfg)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("two runs with seed 42 differ: %d vs %d calls, %+v vs %+v", a.Calls, b.Calls, a.Outage, b.Outage)
			}
			cfg.Seed = 43
			if c := mustSimulate(t, cfg); reflect.DeepEqual(a.Load, c.Load) {
				t.Fatal("seeds 42 and 43 gave the same timeline: the seed is not used")
			}
		})
	}
}

// A horizon that ends with the phases cuts the last user calls short:
// they count as failed.
func TestOutageHorizonCutsUserCalls(t *testing.T) {
	t.Parallel()
	cfg := tinyOutage(outageStrategy(t, "retry"), 5)
	cfg.Horizon = cfg.Phases.Warmup + cfg.Phases.Down + cfg.Phases.Degraded + cfg.Phases.Healthy
	if h := mustSimulate(t, cfg).Outage.Phases[herd.PhaseHealthy]; h.UserFailed == 0 || h.UserFailed > 15 {
		t.Errorf("cut at the end of the phases: %d healthy user calls failed, want the few in flight", h.UserFailed)
	}
	cfg.Horizon += time.Second
	if h := mustSimulate(t, cfg).Outage.Phases[herd.PhaseHealthy]; h.UserFailed != 0 {
		t.Errorf("a second later: %d healthy user calls failed, want 0", h.UserFailed)
	}
}

// A client has one BackOff, its retry stage's, as in a Policy: NewBackOff
// is called once per client, and a BackOff that has no Clone method is used
// by every user call of the client, Reset at the first retry of each.
func TestOutageGivesEachClientOneBackOff(t *testing.T) {
	t.Parallel()
	var made []*countingBackOff
	cfg := tinyOutage(herd.Strategy{NewBackOff: func() backoff.BackOff {
		p := &countingBackOff{}
		made = append(made, p)
		return p
	}}, 6)
	r := mustSimulate(t, cfg)
	resets := 0
	for _, p := range made {
		resets += p.resets
		if p.nextBeforeReset {
			t.Fatal("NextBackOff before Reset")
		}
	}
	if total := r.Outage.Total().UserCalls; resets == 0 || resets > total || len(made) != cfg.Clients {
		t.Fatalf("%d BackOffs made, %d Resets, for %d user calls", len(made), resets, total)
	}
}

// logGuard logs the calls it gets, and answers the attempts its script
// names with the script's error.
type logGuard struct {
	name   string
	log    *[]string
	script map[int]error
	issued uint64
}

func (g *logGuard) Allow(_ context.Context, c guard.Call) (guard.Permit, error) {
	*g.log = append(*g.log, fmt.Sprintf("%s.Allow(%d)", g.name, c.Attempt))
	if err := g.script[c.Attempt]; err != nil {
		return guard.Permit{}, err
	}
	g.issued++
	return guard.Permit{Token: g.issued}, nil
}

func (g *logGuard) Record(p guard.Permit, o guard.Outcome) {
	what := "ok"
	switch {
	case guard.IsRefusal(o.Err):
		what = "refused: " + o.Err.Error()
	case o.Err != nil:
		what = o.Err.Error()
	}
	*g.log = append(*g.log, fmt.Sprintf("%s.Record(%d, %s, abandoned %v)", g.name, p.Token, what, o.Abandoned))
}

// The simulation drives a client's guards as a Policy's guard stages
// inside its retry stage do: the same calls, in the same order, with the
// same attempt numbers, permits and outcomes, whether every attempt fails,
// a guard refuses one, or an Allow fails one as its own (guard.Failure).
func TestOutageDrivesGuardsAsAPolicyDoes(t *testing.T) {
	t.Parallel()
	errNo, errBoom := errors.New("no"), errors.New("boom")
	scripts := map[string][2]map[int]error{
		"all_fail":                 {},
		"inner_refuses_2":          {nil, {2: errNo}},
		"outer_refuses_3":          {{3: errNo}, nil},
		"inner_fails_2_as_its_own": {nil, {2: guard.Failure(errBoom)}},
	}
	for name, script := range scripts {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			newGuards := func(log *[]string) []guard.Guard {
				return []guard.Guard{&logGuard{name: "outer", log: log, script: script[0]},
					&logGuard{name: "inner", log: log, script: script[1]}}
			}
			// One client, one user call a second: the first while the
			// dependency is down, every attempt failing; the second once it
			// is healthy again.
			var sim []string
			cfg := herd.Config{Scenario: herd.Outage, Clients: 1, Rate: 1, Seed: 1, Arrivals: herd.Even,
				Phases:     herd.Phases{Down: time.Second, Healthy: time.Second},
				NewBackOff: outageStrategy(t, "retry").NewBackOff,
				NewGuards:  func(clock.Clock, func() float64) []guard.Guard { return newGuards(&sim) }}
			r := mustSimulate(t, cfg)

			var real []string
			gs := newGuards(&real)
			p := policy.New(policy.Retry(backoff.WithMaxTries(herd.DefaultTries), backoff.WithBackOff(&backoff.ZeroBackOff{})),
				policy.Guard(gs[0]), policy.Guard(gs[1]))
			downErr := p.DoErr(context.Background(), func(context.Context) error { return herd.ErrUnavailable })
			healthyErr := p.DoErr(context.Background(), func(context.Context) error { return nil })
			if !slices.Equal(sim, real) {
				t.Fatalf("the simulation drove the guards so:\n%q\na Policy so:\n%q", sim, real)
			}
			o := r.Outage
			if o.Phases[herd.PhaseDown].UserFailed != 1 || o.Phases[herd.PhaseHealthy].UserFailed != 0 || downErr == nil || healthyErr != nil {
				t.Fatalf("failed user calls %+v; the Policy: %v, %v", o.Phases, downErr, healthyErr)
			}
			// A refusal is the Cause of the Policy's error.
			if refused := o.Phases[herd.PhaseDown].Refused == 1; refused != errors.Is(downErr, errNo) {
				t.Fatalf("refused in the simulation: %v; the Policy's error %v", refused, downErr)
			}
		})
	}
}

// The guards read the simulation's virtual time on the clock they are
// given: at the first user call, time 0; then it only moves forward.
func TestOutageGuardsReadVirtualTime(t *testing.T) {
	t.Parallel()
	var clk clock.Clock
	var seen []time.Time
	cfg := tinyOutage(herd.Strategy{NewBackOff: outageStrategy(t, "retry").NewBackOff,
		NewGuards: func(c clock.Clock, _ func() float64) []guard.Guard {
			clk = c
			return []guard.Guard{guardFunc(func() { seen = append(seen, clk.Now()) })}
		}}, 7)
	cfg.Clients = 1
	r := mustSimulate(t, cfg)
	if len(seen) != r.Calls || r.Calls == 0 {
		t.Fatalf("%d Allows for %d calls", len(seen), r.Calls)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Before(seen[i-1]) {
			t.Fatalf("Allow %d at %v, before Allow %d at %v", i, seen[i], i-1, seen[i-1])
		}
	}
	span := seen[len(seen)-1].Sub(seen[0])
	if total := cfg.Phases.Warmup + cfg.Phases.Down + cfg.Phases.Degraded + cfg.Phases.Healthy; span < total-100*time.Millisecond || span > total {
		t.Fatalf("the guards saw %v pass, the phases last %v", span, total)
	}
}

// guardFunc is a guard that admits every call and calls f in Allow.
type guardFunc func()

func (f guardFunc) Allow(context.Context, guard.Call) (guard.Permit, error) {
	f()
	return guard.Permit{}, nil
}
func (guardFunc) Record(guard.Permit, guard.Outcome) {}

// By default the user calls arrive as a Poisson process: the count of a
// window varies as much as its mean (a dispersion index near 1), the
// clients' counts differ, and each phase starts about its share. Even
// arrivals give every window and every client the same count.
func TestOutagePoissonArrivals(t *testing.T) {
	t.Parallel()
	cfg := smallOutage(outageStrategy(t, "retry"), 4)
	cfg.Arrivals = ""
	cfg.Phases = herd.Phases{Warmup: 4 * time.Second, Down: time.Second, Degraded: time.Second, Healthy: time.Second, DegradedFailures: 0.3}
	r := mustSimulate(t, cfg)
	durations := []time.Duration{cfg.Phases.Warmup, cfg.Phases.Down, cfg.Phases.Degraded, cfg.Phases.Healthy}
	for p, c := range r.Outage.Phases {
		want := durations[p].Seconds() * float64(cfg.Clients) * cfg.Rate
		if math.Abs(float64(c.UserCalls)-want) > 4*math.Sqrt(want) {
			t.Errorf("%v: %d user calls, want %.0f ± 4σ", herd.Phase(p), c.UserCalls, want)
		}
	}
	dispersion := func(r herd.Result) float64 {
		// The warm-up's windows: first attempts alone.
		w := r.Load[10 : cfg.Phases.Warmup/herd.DefaultWindow-10]
		var sum, sq float64
		for _, n := range w {
			sum += float64(n)
		}
		mean := sum / float64(len(w))
		for _, n := range w {
			sq += (float64(n) - mean) * (float64(n) - mean)
		}
		return sq / float64(len(w)) / mean
	}
	if d := dispersion(r); d < 0.75 || d > 1.25 {
		t.Errorf("Poisson arrivals: dispersion index %.2f of the warm-up's windows, want about 1", d)
	}
	if slices.Min(r.ClientCalls) == slices.Max(r.ClientCalls) {
		t.Errorf("Poisson arrivals: every client made %d calls", r.ClientCalls[0])
	}
	cfg.Arrivals = herd.Even
	even := mustSimulate(t, cfg)
	if d := dispersion(even); d > 0.01 {
		t.Errorf("even arrivals: dispersion index %.2f, want 0", d)
	}
}

// panicGuard panics in Allow from its nth call on.
type panicGuard struct{ n int }

func (g *panicGuard) Allow(context.Context, guard.Call) (guard.Permit, error) {
	if g.n--; g.n <= 0 {
		panic("guard broke")
	}
	return guard.Permit{}, nil
}
func (g *panicGuard) Record(guard.Permit, guard.Outcome) {}

// A guard that panics panics Simulate, on the goroutine that called it,
// and the retry loops still in progress end with it: TestMain finds no
// goroutine left.
func TestOutageGuardPanicPanicsSimulate(t *testing.T) {
	t.Parallel()
	cfg := tinyOutage(herd.Strategy{NewBackOff: herd.RetryStage, NewGuards: func(clock.Clock, func() float64) []guard.Guard {
		return []guard.Guard{&panicGuard{n: 40}}
	}}, 1)
	defer func() {
		if r := recover(); r != "guard broke" {
			t.Fatalf("recovered %v, want the guard's panic", r)
		}
	}()
	herd.Simulate(cfg)
	t.Fatal("Simulate returned")
}
