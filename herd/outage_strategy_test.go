package herd_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/herd"
	"github.com/herdsafe/backoff/policy"
	"github.com/herdsafe/backoff/throttle"
)

func TestOutageStrategiesNamesAndOrder(t *testing.T) {
	t.Parallel()
	want := []string{"retry", "token-bucket", "ratio", "ratio-10", "breaker", "throttle", "combined"}
	got := herd.OutageStrategies()
	if len(got) != len(want) {
		t.Fatalf("%d strategies, want %d", len(got), len(want))
	}
	for i, s := range got {
		if s.Name != want[i] || s.NewBackOff == nil || (s.NewGuards == nil) != (s.Name == "retry") {
			t.Errorf("strategy %d = %q (guards %v), want %q", i, s.Name, s.NewGuards != nil, want[i])
		}
		// Every one retries as a Policy's retry stage does by default.
		b, ok := s.NewBackOff().(*backoff.ExponentialBackOff)
		d := policy.DefaultBackOff()
		if !ok || b.InitialInterval != d.InitialInterval || b.MaxInterval != d.MaxInterval || b.Multiplier != d.Multiplier || b.Jitter != d.Jitter {
			t.Errorf("%s: BackOff %+v, want policy.DefaultBackOff()", s.Name, b)
		}
		if s.NewBackOff() == s.NewBackOff() {
			t.Errorf("%s: NewBackOff returned the same BackOff twice", s.Name)
		}
	}
}

// guardsOf returns the guards the strategy name makes on clk, drawing r.
func guardsOf(t *testing.T, name string, clk clock.Clock, r func() float64) []guard.Guard {
	t.Helper()
	gs := outageStrategy(t, name).NewGuards(clk, r)
	for _, g := range gs {
		if v, ok := g.(interface{ Validate() error }); ok && v.Validate() != nil {
			t.Fatalf("%s: %v", name, v.Validate())
		}
	}
	return gs
}

// attempt asks g to admit an attempt, and tells it the attempt failed.
func attempt(g guard.Guard, n int) error {
	p, err := g.Allow(context.Background(), guard.Call{Attempt: n})
	if err == nil {
		g.Record(p, guard.Outcome{Err: herd.ErrUnavailable})
	}
	return err
}

// Each strategy's guards are the library's, with the settings its
// documentation names, on the clock and the random source it is given.
func TestOutageStrategiesGuards(t *testing.T) {
	t.Parallel()
	never := func() float64 { return 0.999999 }
	types := map[string][]string{
		"token-bucket": {"*budget.Budget"},
		"ratio":        {"*budget.Budget"},
		"ratio-10":     {"*budget.Budget"},
		"breaker":      {"*breaker.Breaker"},
		"throttle":     {"*throttle.Throttle"},
		"combined":     {"*budget.Budget", "*breaker.Breaker", "*throttle.Throttle"},
	}
	for name, want := range types {
		gs := guardsOf(t, name, clock.NewMock(), never)
		if len(gs) != len(want) {
			t.Fatalf("%s: %d guards, want %v", name, len(gs), want)
		}
		for i, g := range gs {
			var got string
			switch g.(type) {
			case *budget.Budget:
				got = "*budget.Budget"
			case *breaker.Breaker:
				got = "*breaker.Breaker"
			case *throttle.Throttle:
				got = "*throttle.Throttle"
			}
			if got != want[i] {
				t.Errorf("%s: guard %d is %T, want %s", name, i, g, want[i])
			}
		}
	}

	t.Run("ratio_budgets", func(t *testing.T) {
		// Finagle's reserve admits a retry before any request; the SRE
		// budget has none, and admits one retry per ten first attempts of
		// its window, measured on the clock given.
		clk := clock.NewMock()
		if err := attempt(guardsOf(t, "ratio", clk, never)[0], 2); err != nil {
			t.Errorf("ratio: a retry with the reserve refused: %v", err)
		}
		sre := guardsOf(t, "ratio-10", clk, never)[0]
		if err := attempt(sre, 2); !errors.Is(err, budget.ErrBudgetExhausted) {
			t.Errorf("ratio-10: a retry without a request: %v, want it refused", err)
		}
		for range 10 {
			_ = attempt(sre, 1)
		}
		if err := attempt(sre, 2); err != nil {
			t.Errorf("ratio-10: a retry after 10 requests: %v", err)
		}
		for range 10 {
			_ = attempt(sre, 1)
		}
		clk.Add(11 * time.Second) // the requests leave the 10 s window
		if err := attempt(sre, 2); !errors.Is(err, budget.ErrBudgetExhausted) {
			t.Errorf("ratio-10: a retry 11s after the requests: %v, want it refused", err)
		}
	})
	t.Run("breaker", func(t *testing.T) {
		clk := clock.NewMock()
		b := guardsOf(t, "breaker", clk, never)[0]
		for range breaker.DefaultConsecutiveFailures {
			_ = attempt(b, 1)
		}
		if err := attempt(b, 1); !errors.Is(err, breaker.ErrCircuitOpen) {
			t.Fatalf("after 5 failures: %v, want the breaker open", err)
		}
		clk.Add(breaker.DefaultOpenDuration)
		if err := attempt(b, 1); err != nil {
			t.Fatalf("60s later, on the clock given: %v, want a probe", err)
		}
	})
	t.Run("throttle", func(t *testing.T) {
		// Once failures outweigh successes, the throttle rejects the calls
		// the random source given says to.
		always := func() float64 { return 0 }
		for _, tc := range []struct {
			random   func() float64
			rejected bool
		}{{never, false}, {always, true}} {
			th := guardsOf(t, "throttle", clock.NewMock(), tc.random)[0]
			for range 10 {
				_ = attempt(th, 1)
			}
			if err := attempt(th, 1); errors.Is(err, throttle.ErrThrottled) != tc.rejected {
				t.Errorf("draws of %v: %v, want rejected %v", tc.random(), err, tc.rejected)
			}
		}
	})
}
