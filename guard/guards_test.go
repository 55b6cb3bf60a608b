package guard_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/chaos"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
	adaptive "github.com/herdsafe/backoff/limiter" // as adaptive: the package example has a limiter of its own
	"github.com/herdsafe/backoff/throttle"
)

// runner is what every guard of the module offers: the contract, Validate
// and a Run method of its own.
type runner = guardtest.Runner

// moduleGuard makes a guard of the module, usable or not, and reads its
// counts (a comparable value).
type moduleGuard struct {
	name   string
	make   func() runner
	counts func(runner) any
}

// moduleGuards are the guards of the module: each as New makes it with
// the defaults, and its zero value.
func moduleGuards() (usable, zero []moduleGuard) {
	breakerCounts := func(g runner) any { return g.(*breaker.Breaker).Counts() }
	bulkheadStats := func(g runner) any { return g.(*bulkhead.Bulkhead).Stats() }
	priorityStats := func(g runner) any { return g.(*bulkhead.PriorityBulkhead).Stats() }
	budgetStats := func(g runner) any { return g.(*budget.Budget).Stats() }
	throttleStats := func(g runner) any { return g.(*throttle.Throttle).Stats() }
	chaosStats := func(g runner) any { return g.(*chaos.Injector).Stats() }
	limiterStats := func(g runner) any { return g.(*adaptive.Limiter).Stats() }
	usable = []moduleGuard{
		{"breaker", func() runner { return breaker.New() }, breakerCounts},
		{"bulkhead", func() runner { return bulkhead.New(1) }, bulkheadStats},
		{"priority_bulkhead", func() runner { return bulkhead.NewPriority(10) }, priorityStats},
		{"token_bucket", func() runner { return budget.NewTokenBucket() }, budgetStats},
		{"ratio_budget", func() runner { return budget.NewRatio() }, budgetStats},
		{"throttle", func() runner { return throttle.New() }, throttleStats},
		{"chaos", func() runner { return chaos.New(chaos.Config{LatencyProbability: 1}) }, chaosStats},
		{"limiter", func() runner { return adaptive.New() }, limiterStats},
	}
	zero = []moduleGuard{
		{"breaker", func() runner { return &breaker.Breaker{} }, breakerCounts},
		{"bulkhead", func() runner { return &bulkhead.Bulkhead{} }, bulkheadStats},
		{"priority_bulkhead", func() runner { return &bulkhead.PriorityBulkhead{} }, priorityStats},
		{"budget", func() runner { return &budget.Budget{} }, budgetStats},
		{"throttle", func() runner { return &throttle.Throttle{} }, throttleStats},
		{"chaos", func() runner { return &chaos.Injector{} }, chaosStats},
		{"limiter", func() runner { return &adaptive.Limiter{} }, limiterStats},
	}
	return usable, zero
}

// Every guard's Run is guard.Run: it runs an admitted call once and
// returns its error; it refuses a context already done before the guard is
// asked, counting nothing; it reports a nil context or function, both
// named; and a panic goes on (guardtest.RunIsGuardRun).
func TestModuleGuardsRun(t *testing.T) {
	usable, _ := moduleGuards()
	for _, mg := range usable {
		t.Run(mg.name, func(t *testing.T) { guardtest.RunIsGuardRun(t, mg.make, mg.counts) })
	}
}

// A guard no constructor made reports it (Validate), and its Run refuses
// every call with that error, marked as a refusal, without calling fn.
func TestModuleGuardsZero(t *testing.T) {
	_, zero := moduleGuards()
	for _, mg := range zero {
		t.Run(mg.name, func(t *testing.T) {
			g := mg.make()
			want := g.Validate()
			if !errors.Is(want, backoff.ErrInvalidConfiguration) || !contains(want, "zero or nil") {
				t.Fatalf("Validate = %v, want ErrInvalidConfiguration saying it is a zero value", want)
			}
			if _, err := g.Allow(context.Background(), guard.Call{Attempt: 1}); err != want {
				t.Errorf("Allow = %v, want Validate's error", err)
			}
			called := false
			err := g.Run(context.Background(), func(context.Context) error { called = true; return nil })
			if !errors.Is(err, want) || !errors.Is(err, backoff.ErrRefused) || called {
				t.Errorf("Run = %v (fn called: %v), want a refusal with Validate's error", err, called)
			}
		})
	}
}

func contains(err error, s string) bool {
	return err != nil && strings.Contains(err.Error(), s)
}
