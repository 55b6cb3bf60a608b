package herd_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/herd"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/throttle"
)

// An expression names guards, outermost first, with the settings that
// differ from their defaults; String writes it back the same way.
func TestParseStack(t *testing.T) {
	t.Parallel()
	cases := []struct {
		expr, want string
		guards     []herd.GuardSpec
	}{
		{"retry", "retry", nil},
		{"token-bucket", "token-bucket", []herd.GuardSpec{&herd.TokenBucket{Tokens: 10, Ratio: 0.1}}},
		{" token-bucket + breaker( open = 5s ) ", "token-bucket+breaker(open=5s)", []herd.GuardSpec{
			&herd.TokenBucket{Tokens: 10, Ratio: 0.1},
			&herd.Breaker{Failures: 5, Open: 5 * time.Second, Probes: 1, Successes: 1}}},
		{"breaker(failures=3,open=1500ms,probes=2,successes=2)", "breaker(failures=3,open=1.5s,probes=2,successes=2)", []herd.GuardSpec{
			&herd.Breaker{Failures: 3, Open: 1500 * time.Millisecond, Probes: 2, Successes: 2}}},
		{"ratio-10", "ratio(ratio=0.1,reserve=0)", []herd.GuardSpec{&herd.RatioBudget{Ratio: 0.1, Reserve: 0, Window: 10 * time.Second}}},
		{"ratio-10(window=5s)", "ratio(ratio=0.1,reserve=0,window=5s)", []herd.GuardSpec{&herd.RatioBudget{Ratio: 0.1, Window: 5 * time.Second}}},
		{"ratio(window=10s)", "ratio", []herd.GuardSpec{&herd.RatioBudget{Ratio: 0.2, Reserve: 10, Window: 10 * time.Second}}},
		{"throttle(k=1.5,window=30s)", "throttle(k=1.5,window=30s)", []herd.GuardSpec{&herd.Throttle{K: 1.5, Window: 30 * time.Second}}},
		{"combined", "token-bucket+breaker+throttle", []herd.GuardSpec{
			&herd.TokenBucket{Tokens: 10, Ratio: 0.1},
			&herd.Breaker{Failures: 5, Open: time.Minute, Probes: 1, Successes: 1},
			&herd.Throttle{K: 2, Window: 2 * time.Minute}}},
		{"bulkhead(max=3)", "bulkhead(max=3)", []herd.GuardSpec{&herd.Bulkhead{Max: 3}}},
		{"limiter(alpha=3,initial=10)", "limiter(initial=10,alpha=3)", []herd.GuardSpec{&herd.Limiter{Initial: 10, Floor: 1, Ceiling: 1000, Tolerance: 1, Alpha: 3, Beta: 6, Decrease: 0.9,
			Window: 100 * time.Millisecond, Samples: 10, Baseline: 10 * time.Minute}}},
		{"limiter(window=50ms,samples=5,baseline=1m)", "limiter(window=50ms,samples=5,baseline=1m)", []herd.GuardSpec{&herd.Limiter{Initial: 20, Floor: 1, Ceiling: 1000, Tolerance: 1, Beta: 6, Decrease: 0.9,
			Window: 50 * time.Millisecond, Samples: 5, Baseline: time.Minute}}},
		{"breaker(rate=0.5,min-calls=20,calls=100)", "breaker(rate=0.5,min-calls=20,calls=100)", []herd.GuardSpec{
			&herd.Breaker{Failures: 5, Open: time.Minute, Probes: 1, Successes: 1, Rate: 0.5, MinCalls: 20, Calls: 100}}},
		{"breaker(rate=0.5,min-calls=20,period=30s,slow=2s,slow-rate=0.8)", "breaker(rate=0.5,min-calls=20,period=30s,slow=2s,slow-rate=0.8)", []herd.GuardSpec{
			&herd.Breaker{Failures: 5, Open: time.Minute, Probes: 1, Successes: 1, Rate: 0.5, MinCalls: 20, Period: 30 * time.Second, Slow: 2 * time.Second, SlowRate: 0.8}}},
	}
	for _, tc := range cases {
		st, err := herd.ParseStack(tc.expr)
		if err != nil {
			t.Errorf("ParseStack(%q): %v", tc.expr, err)
			continue
		}
		if !reflect.DeepEqual(st.Guards, tc.guards) {
			t.Errorf("ParseStack(%q) = %#v, want %#v", tc.expr, st.Guards, tc.guards)
		}
		if got := st.String(); got != tc.want {
			t.Errorf("ParseStack(%q).String() = %q, want %q", tc.expr, got, tc.want)
		}
		if again, err := herd.ParseStack(st.String()); err != nil || !reflect.DeepEqual(again.Guards, st.Guards) {
			t.Errorf("ParseStack(%q) again = %#v, %v", st.String(), again.Guards, err)
		}
		if err := st.Validate(); err != nil {
			t.Errorf("ParseStack(%q).Validate() = %v", tc.expr, err)
		}
	}
}

// A bad expression, or a setting the guard rejects, is an error that
// matches ErrInvalidConfig and says what is wrong.
func TestParseStackErrors(t *testing.T) {
	t.Parallel()
	parse := []struct{ expr, want string }{
		{"", "a kind is missing"},
		{"breaker+", "a kind is missing"},
		{"circuit", `"circuit" is not a guard`},
		{"full", `"full" is not a guard`},
		{"breaker(open=5s", "closing"},
		{"breaker(open)", "name=value"},
		{"breaker(opne=5s)", `no setting "opne"; it has failures, open, probes, successes`},
		{"breaker(open=5)", "not a duration"},
		{"breaker(failures=2.5)", "not a whole number"},
		{"ratio(ratio=much)", "not a number"},
		{"retry+breaker", "retries without a guard"},
		{"retry(x=1)", "retries without a guard"},
		{"combined(open=5s)", "several guards"},
		// failures at its default, given with the failure rate
		{"breaker(failures=5,rate=0.5,min-calls=5,calls=10)", "failures and rate are two trip rules"},
		{"breaker(min-calls=5,failures=5)", "failures and rate are two trip rules"},
		{"breaker(failures=3,rate=0.5,min-calls=5,calls=10)", "failures and rate are two trip rules"},
	}
	for _, tc := range parse {
		_, err := herd.ParseStack(tc.expr)
		if !isInvalidConfig(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseStack(%q) = %v, want ErrInvalidConfig saying %q", tc.expr, err, tc.want)
		}
	}
	settings := []struct{ expr, want string }{
		{"breaker(failures=0)", "WithConsecutiveFailures"},
		{"breaker(open=-1s)", "WithOpenDuration"},
		{"token-bucket(tokens=0)", "WithMaxTokens"},
		{"ratio(window=1ms)", "WithWindow"},
		{"throttle(k=0.5)", "WithK"},
		{"bulkhead(max=0)", "capacity"},
		{"limiter(alpha=9)", "WithVegas"},
		{"limiter(floor=0)", "WithFloor"},
		{"limiter(window=0s)", "WithWindow"},
		{"limiter(samples=0)", "WithWindow"},
		{"limiter(baseline=10ms)", "WithBaseline"},
		{"breaker(rate=1.5,min-calls=1,calls=10)", "WithFailureRate"},
		{"breaker(min-calls=5,calls=10)", "WithFailureRate"},
		{"breaker(rate=0.5,min-calls=20,calls=10)", "WithFailureRate"},
		{"breaker(rate=0.5,calls=10)", "WithFailureRate"},
		{"breaker(rate=0.5,min-calls=5,period=1ms)", "WithFailureRateOver"},
		{"breaker(rate=0.5,min-calls=5,period=-1s)", "WithFailureRateOver"},
		{"breaker(slow=1s,slow-rate=0.5)", "WithSlowCalls"},
		{"breaker(rate=0.5,min-calls=5,calls=10,slow=1s)", "WithSlowCalls"},
		{"breaker(rate=0.5,min-calls=5,calls=10,slow-rate=0.5)", "WithSlowCalls"},
		{"breaker(rate=0.5,min-calls=5,calls=10,slow=1ns,slow-rate=0.5)", "WithSlowCalls"},
		{"breaker(rate=0.5,min-calls=5,calls=10,period=1s)", "calls and period are two windows"},
	}
	// Built as a struct, a Breaker with both trip rules is refused by the
	// guard it makes.
	both := herd.Stack{Guards: []herd.GuardSpec{&herd.Breaker{Failures: 3, Open: time.Second, Probes: 1, Successes: 1, Rate: 0.5, MinCalls: 5, Calls: 10}}}
	if err := both.Validate(); !isInvalidConfig(err) || !strings.Contains(err.Error(), "failures and rate are two trip rules") {
		t.Errorf("a Breaker of both rules: Validate() = %v", err)
	}
	for _, tc := range settings {
		st, err := herd.ParseStack(tc.expr)
		if err != nil {
			t.Errorf("ParseStack(%q): %v", tc.expr, err)
			continue
		}
		if err := st.Validate(); !isInvalidConfig(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseStack(%q).Validate() = %v, want ErrInvalidConfig naming %q", tc.expr, err, tc.want)
		}
	}
}

// The settings reach the real guards: a breaker's open duration, read
// back from its refusal.
func TestStackSettingsReachTheGuards(t *testing.T) {
	t.Parallel()
	st, err := herd.ParseStack("breaker(failures=1,open=7s)")
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewMock()
	g := st.NewGuards(clk, func() float64 { return 0.5 })[0]
	p, _ := g.Allow(t.Context(), guard.Call{Attempt: 1})
	g.Record(p, guard.Outcome{Err: herd.ErrUnavailable})
	_, err = g.Allow(t.Context(), guard.Call{Attempt: 1})
	var open *breaker.OpenError
	if !errors.As(err, &open) || open.Duration != 7*time.Second {
		t.Fatalf("after one failure: %v, want the breaker open for 7s", err)
	}
}

// The failure-rate and slow-call rules reach the breaker: it trips when
// the share of failed (or slow) calls of its window reaches the rate, and
// not before its window holds min-calls calls.
func TestStackBreakerRulesReachTheBreaker(t *testing.T) {
	t.Parallel()
	call := func(t *testing.T, g guard.Guard, clk *clock.Mock, took time.Duration, err error) error {
		t.Helper()
		p, refused := g.Allow(t.Context(), guard.Call{Attempt: 1})
		if refused != nil {
			return refused
		}
		clk.Add(took)
		g.Record(p, guard.Outcome{Err: err})
		return nil
	}
	for _, expr := range []string{"breaker(rate=0.5,min-calls=4,calls=4)", "breaker(rate=0.5,min-calls=4,period=10s)"} {
		clk := clock.NewMock()
		g := mustStack(t, expr).NewGuards(clk, func() float64 { return 0.5 })[0]
		// 2 failures of 3 calls do not trip it: its window holds fewer
		// than 4; a third failure, 3 of 4, does.
		for i, err := range []error{herd.ErrUnavailable, nil, herd.ErrUnavailable, herd.ErrUnavailable} {
			if refused := call(t, g, clk, time.Millisecond, err); refused != nil {
				t.Fatalf("%s: call %d refused: %v", expr, i+1, refused)
			}
		}
		if err := call(t, g, clk, time.Millisecond, nil); !errors.Is(err, breaker.ErrCircuitOpen) {
			t.Errorf("%s: after 3 failures of 4 calls: %v, want the breaker open", expr, err)
		}
	}
	clk := clock.NewMock()
	g := mustStack(t, "breaker(rate=1,min-calls=2,calls=2,slow=1s,slow-rate=1)").NewGuards(clk, func() float64 { return 0.5 })[0]
	for i := range 2 {
		if refused := call(t, g, clk, 2*time.Second, nil); refused != nil {
			t.Fatalf("slow call %d refused: %v", i+1, refused)
		}
	}
	if err := call(t, g, clk, 0, nil); !errors.Is(err, breaker.ErrCircuitOpen) {
		t.Errorf("after 2 calls of 2s, slower than slow=1s: %v, want the breaker open", err)
	}
}

// The limiter's sample window reaches the limiter: with samples=1 and a
// short window, its limit moves after the first call; by default it
// waits for 10.
func TestStackLimiterSettingsReachTheLimiter(t *testing.T) {
	t.Parallel()
	limit := func(expr string) int {
		clk := clock.NewMock()
		g := mustStack(t, expr).NewGuards(clk, func() float64 { return 0.5 })[0]
		for range 3 {
			p, err := g.Allow(t.Context(), guard.Call{Attempt: 1})
			if err != nil {
				t.Fatalf("%s: %v", expr, err)
			}
			clk.Add(20 * time.Millisecond)
			g.Record(p, guard.Outcome{Err: herd.ErrUnavailable})
		}
		return g.(*limiter.Limiter).Stats().Limit
	}
	if got := limit("limiter(initial=100)"); got != 100 {
		t.Errorf("limiter(initial=100) after 3 failed calls of 20ms: limit %d, want 100 (its window wants 10 calls)", got)
	}
	if got := limit("limiter(initial=100,window=10ms,samples=1)"); got >= 100 {
		t.Errorf("limiter(initial=100,window=10ms,samples=1) after 3 failed calls of 20ms: limit %d, want it below 100", got)
	}
}

// With random offsets, each client's ratio budget moves its slots on at
// instants of its own, and the bursts of retries a ratio budget allows
// each time its old retries leave the window no longer come together:
// after the outage's onset, the busiest 10 ms of every 5 s fall.
func TestStackRandomOffsetsSpreadTheBursts(t *testing.T) {
	t.Parallel()
	peaks := func(zero bool) (onset, later float64) {
		st, err := herd.ParseStack("ratio-10")
		if err != nil {
			t.Fatal(err)
		}
		st.ZeroOffsets = zero
		cfg := smallOutage(st.Strategy(herd.RetryStage), 5)
		cfg.Clients, cfg.Phases.Down, cfg.Phases.Degraded, cfg.Phases.Healthy = 6, 25*time.Second, 0, time.Second
		r := mustSimulate(t, cfg)
		w := int(time.Second / herd.DefaultWindow)
		start := int(cfg.Phases.Warmup / herd.DefaultWindow)
		for i := start; i < start+2*w; i++ {
			onset = max(onset, float64(r.Load[i])/r.Outage.Base)
		}
		for i := start + 5*w; i < start+25*w; i++ {
			later = max(later, float64(r.Load[i])/r.Outage.Base)
		}
		return onset, later
	}
	onsetZero, zero := peaks(true)
	onsetRandom, random := peaks(false)
	if zero < 2.5 || random > 0.8*zero {
		t.Errorf("the bursts after the onset: peaks %.2f× with every window at 0, %.2f× at random offsets; want the first 2.5× at least, and the second a fifth lower", zero, random)
	}
	if onsetRandom < 0.9*onsetZero {
		t.Errorf("the onset: %.2f× at random offsets, %.2f× without; the onset is every client's first failures, whatever the offsets", onsetRandom, onsetZero)
	}
}

// ParseBackOff reads the kinds of Strategies, with a base and a cap.
func TestParseBackOff(t *testing.T) {
	t.Parallel()
	b, err := herd.ParseBackOff("full(base=100ms,cap=5s)", herd.DefaultBase, herd.DefaultCap)
	if err != nil {
		t.Fatal(err)
	}
	if b.Name != "full" || b.Base != 100*time.Millisecond || b.Cap != 5*time.Second {
		t.Fatalf("ParseBackOff = %+v", b)
	}
	if got := b.String(100*time.Millisecond, 5*time.Second); got != "full" {
		t.Errorf("String with its own base and cap = %q, want full", got)
	}
	if got := b.String(herd.DefaultBase, herd.DefaultCap); got != "full(base=100ms,cap=5s)" {
		t.Errorf("String = %q", got)
	}
	// full(base=100ms,cap=5s) waits as a retry stage does by default.
	e, stage := b.NewBackOff()().(*backoff.ExponentialBackOff), herd.RetryStage().(*backoff.ExponentialBackOff)
	one := func() float64 { return 1 }
	e.Random, stage.Random = one, one
	for range 8 {
		if x, y := e.NextBackOff(), stage.NextBackOff(); x != y {
			t.Fatalf("full(base=100ms,cap=5s) waits %v, the retry stage %v", x, y)
		}
	}
	for _, tc := range []struct{ expr, want string }{
		{"jittery", "not a BackOff"},
		{"full+equal", "one kind"},
		{"immediate(base=1s)", "no setting"},
		{"full(base=1s,cap=10ms)", "smaller than base"},
		{"full(base=-1s)", "negative"},
	} {
		if _, err := herd.ParseBackOff(tc.expr, herd.DefaultBase, herd.DefaultCap); !isInvalidConfig(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseBackOff(%q) = %v, want ErrInvalidConfig saying %q", tc.expr, err, tc.want)
		}
	}
}

// Every kind GuardKinds lists parses by its name, on the defaults of its
// guard, and has a setting for each of its fields.
func TestGuardKinds(t *testing.T) {
	t.Parallel()
	for _, k := range herd.GuardKinds() {
		st, err := herd.ParseStack(k.Name)
		if err != nil || len(st.Guards) != 1 || st.Guards[0].Kind() != k.Name {
			t.Errorf("ParseStack(%q) = %+v, %v", k.Name, st, err)
			continue
		}
		spec := st.Guards[0]
		if n := reflect.TypeOf(spec).Elem().NumField(); n != len(spec.Params()) {
			t.Errorf("%s: %d fields, %d settings", k.Name, n, len(spec.Params()))
		}
		if err := st.Validate(); err != nil {
			t.Errorf("%s on its defaults: %v", k.Name, err)
		}
	}
	// The defaults are the guards' own.
	if d := (herd.Breaker{Failures: breaker.DefaultConsecutiveFailures, Open: breaker.DefaultOpenDuration, Probes: 1, Successes: 1}); !reflect.DeepEqual(mustStack(t, "breaker").Guards[0], &d) {
		t.Errorf("breaker's defaults: %+v", mustStack(t, "breaker").Guards[0])
	}
	if d := (herd.RatioBudget{Ratio: budget.DefaultRetryRatio, Reserve: budget.DefaultMinRetriesPerSecond, Window: budget.DefaultWindow}); !reflect.DeepEqual(mustStack(t, "ratio").Guards[0], &d) {
		t.Errorf("ratio's defaults: %+v", mustStack(t, "ratio").Guards[0])
	}
	if d := (herd.Throttle{K: throttle.DefaultK, Window: throttle.DefaultWindow}); !reflect.DeepEqual(mustStack(t, "throttle").Guards[0], &d) {
		t.Errorf("throttle's defaults: %+v", mustStack(t, "throttle").Guards[0])
	}
}

func mustStack(t *testing.T, expr string) herd.Stack {
	t.Helper()
	st, err := herd.ParseStack(expr)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestSplitStrategies(t *testing.T) {
	t.Parallel()
	got := herd.SplitStrategies("retry, breaker(open=5s,failures=3) ,token-bucket+ratio")
	want := []string{"retry", "breaker(open=5s,failures=3)", "token-bucket+ratio"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SplitStrategies = %q, want %q", got, want)
	}
}
