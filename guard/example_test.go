package guard_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
)

// A Guard of one's own: a limit on the calls in flight, which refuses a
// call beyond it. Allow takes a slot, Record gives it back: Run calls
// Record exactly once for every call Allow admitted, a panic included.
type limiter struct {
	mu       sync.Mutex
	inFlight int
	max      int
}

var errTooMany = errors.New("too many calls in flight")

func (l *limiter) Allow(ctx context.Context, c guard.Call) (guard.Permit, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inFlight >= l.max {
		return guard.Permit{}, errTooMany
	}
	l.inFlight++
	return guard.Permit{}, nil
}

func (l *limiter) Record(p guard.Permit, o guard.Outcome) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inFlight--
}

// The contract: a guard admits a call (Allow) and learns how it ended
// (Record).
func ExampleGuard() {
	l := &limiter{max: 1}
	err := guard.Run(context.Background(), l, guard.Call{Attempt: 1}, func(ctx context.Context) error {
		// A second call while the first is in flight is refused.
		err := guard.Run(ctx, l, guard.Call{Attempt: 1}, func(context.Context) error { return nil })
		fmt.Println("second call:", err)
		return nil
	})
	fmt.Println("first call:", err, "- in flight now:", l.inFlight)
	// Output:
	// second call: too many calls in flight
	// first call: <nil> - in flight now: 0
}

// Run runs a function under a guard, as a guard stage of package policy
// does. A refusal matches backoff.ErrRefused and wraps the guard's error.
func ExampleRun() {
	sw := &maintenance{}
	call := func(context.Context) error { fmt.Println("calling the dependency"); return nil }

	fmt.Println(guard.Run(context.Background(), sw, guard.Call{Attempt: 1}, call))

	sw.on.Store(true)
	err := guard.Run(context.Background(), sw, guard.Call{Attempt: 1}, call)
	fmt.Println(err, errors.Is(err, errMaintenance), errors.Is(err, backoff.ErrRefused))
	// Output:
	// calling the dependency
	// <nil>
	// in maintenance true true
}

var errMaintenance = errors.New("in maintenance")

// maintenance refuses every call while on is set.
type maintenance struct{ on atomic.Bool }

func (m *maintenance) Allow(context.Context, guard.Call) (guard.Permit, error) {
	if m.on.Load() {
		return guard.Permit{}, errMaintenance
	}
	return guard.Permit{}, nil
}

func (m *maintenance) Record(guard.Permit, guard.Outcome) {}

// injector fails the first n calls it is asked to admit, as a chaos guard
// does: the failures are the call's own, not refusals.
type injector struct{ n atomic.Int64 }

var errInjected = errors.New("injected: connection reset")

func (i *injector) Allow(context.Context, guard.Call) (guard.Permit, error) {
	if i.n.Add(-1) >= 0 {
		return guard.Permit{}, guard.Failure(errInjected)
	}
	return guard.Permit{}, nil
}

func (i *injector) Record(guard.Permit, guard.Outcome) {}

// Failure marks an error of Allow as the call's own failure: a retry
// driver retries it, where it would stop at a refusal.
func ExampleFailure() {
	inj := &injector{}
	inj.n.Store(2)
	calls := 0
	err := backoff.DoErr(context.Background(), func(ctx context.Context) error {
		return guard.Run(ctx, inj, guard.Call{Attempt: 1}, func(context.Context) error { calls++; return nil })
	}, backoff.WithBackOff(&backoff.ZeroBackOff{}))
	fmt.Println(err, calls)

	inj.n.Store(1)
	err = guard.Run(context.Background(), inj, guard.Call{Attempt: 1}, func(context.Context) error { return nil })
	fmt.Println(err, guard.IsRefusal(err))
	// Output:
	// <nil> 1
	// injected: connection reset false
}

// failureCounter counts the failures of the calls it admits, but not the
// refusals of a guard inside it, which the dependency never saw.
type failureCounter struct{ failures, refusals atomic.Int64 }

func (f *failureCounter) Allow(context.Context, guard.Call) (guard.Permit, error) {
	return guard.Permit{}, nil
}

func (f *failureCounter) Record(p guard.Permit, o guard.Outcome) {
	switch {
	case guard.IsRefusal(o.Err):
		f.refusals.Add(1)
	case o.Err != nil && !o.Abandoned:
		f.failures.Add(1)
	}
}

// IsRefusal tells a guard a call its dependency never saw from one that
// failed.
func ExampleIsRefusal() {
	outer := &failureCounter{}
	inner := &maintenance{}
	call := func(ctx context.Context) error {
		return guard.Run(ctx, inner, guard.Call{Attempt: 1}, func(context.Context) error {
			return errors.New("503 Service Unavailable")
		})
	}

	_ = guard.Run(context.Background(), outer, guard.Call{Attempt: 1}, call)
	inner.on.Store(true)
	_ = guard.Run(context.Background(), outer, guard.Call{Attempt: 1}, call)
	fmt.Println("failures:", outer.failures.Load(), "refusals:", outer.refusals.Load())
	// Output:
	// failures: 1 refusals: 1
}

// Admit asks a guard as Run does, for code that makes the call itself:
// here two guards asked in turn, told the outcome in reverse.
func ExampleAdmit() {
	outer, inner := &limiter{max: 1}, &limiter{max: 1}
	ctx := context.Background()
	c := guard.Call{Attempt: 1}
	p1, err := guard.Admit(ctx, outer, c)
	if err != nil {
		fmt.Println(err)
		return
	}
	p2, err := guard.Admit(ctx, inner, c)
	if err != nil {
		outer.Record(p1, guard.Outcome{Err: err})
		fmt.Println(err)
		return
	}
	fmt.Println("in flight:", outer.inFlight, inner.inFlight)
	err = nil // the call's error
	inner.Record(p2, guard.Outcome{Err: err, Abandoned: ctx.Err() != nil})
	outer.Record(p1, guard.Outcome{Err: err, Abandoned: ctx.Err() != nil})
	fmt.Println("in flight:", outer.inFlight, inner.inFlight)
	// Output:
	// in flight: 1 1
	// in flight: 0 0
}
