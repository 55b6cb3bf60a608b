package guard_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/chaos"
	"github.com/herdsafe/backoff/guard"
	adaptive "github.com/herdsafe/backoff/limiter" // as adaptive: the package example has a limiter of its own
	"github.com/herdsafe/backoff/throttle"
)

// runner is what every guard of the module offers: the contract, Validate
// and a Run method of its own.
type runner interface {
	guard.Guard
	guard.Validator
	Run(ctx context.Context, fn func(context.Context) error) error
}

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
// named; and a panic goes on.
func TestModuleGuardsRun(t *testing.T) {
	usable, _ := moduleGuards()
	errStop := errors.New("shutting down")
	done, cancel := context.WithCancelCause(context.Background())
	cancel(errStop)
	for _, mg := range usable {
		t.Run(mg.name, func(t *testing.T) {
			g := mg.make()
			calls := 0
			if err := g.Run(context.Background(), func(context.Context) error { calls++; return io.EOF }); err != io.EOF || calls != 1 {
				t.Errorf("Run = %v after %d calls, want fn's error after 1", err, calls)
			}

			before := mg.counts(g)
			err := g.Run(done, func(context.Context) error { calls++; return nil })
			if !errors.Is(err, backoff.ErrRefused) || !errors.Is(err, errStop) || calls != 1 {
				t.Errorf("Run(done) = %v after %d more calls, want a refusal wrapping the cause, fn not called", err, calls-1)
			}
			if after := mg.counts(g); after != before {
				t.Errorf("Run(done) changed the counts from %+v to %+v: the guard was asked", before, after)
			}

			//lint:ignore SA1012 a nil context is what is being tested
			err = g.Run(nil, nil)
			if !errors.Is(err, backoff.ErrInvalidConfiguration) || guard.IsRefusal(err) ||
				!contains(err, "nil context") || !contains(err, "nil function") {
				t.Errorf("Run(nil, nil) = %v, want ErrInvalidConfiguration naming both", err)
			}

			g = mg.make()
			v := recovered(func() { _ = g.Run(context.Background(), func(context.Context) error { panic("boom") }) })
			if v != "boom" {
				t.Errorf("recovered %v, want fn's panic", v)
			}
		})
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
