package backoff

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// A Policy that cannot be used fails every call before anything runs,
// with a Cause that names what is wrong.
func TestPolicyRejectsWhatItCannotUse(t *testing.T) {
	ok := func(context.Context) (int, error) { return 1, nil }
	cases := []struct {
		name string
		p    *Policy
		ctx  context.Context
		fn   func(context.Context) (int, error)
		word string
	}{
		{"nil policy", nil, context.Background(), ok, "nil *Policy"},
		{"zero Stage", NewPolicy(WithRetry(), Stage{}), context.Background(), ok, "stage 2 is a zero Stage"},
		{"bad retry option", NewPolicy(WithRetry(WithMaxElapsedTime(-1))), context.Background(), ok, "stage 1"},
		{"bad BackOff", NewPolicy(WithRetry(WithBackOff(NewConstantBackOff(-1)))), context.Background(), ok, "Interval"},
		{"bad timeout", NewPolicy(WithTimeout(0)), context.Background(), ok, "not positive"},
		{"nil timeout clock", NewPolicy(WithTimeoutClock(nil, time.Second)), context.Background(), ok, "nil clock"},
		{"nil fallback", NewPolicy(WithFallback[int](nil)), context.Background(), ok, "WithFallback"},
		{"nil effect fallback", NewPolicy(WithFallbackErr(nil)), context.Background(), ok, "WithFallbackErr"},
		{"two result checks", NewPolicy(WithRetry(CheckResult(func(int) error { return nil }, nil)), WithRetry(CheckResult(func(int) error { return nil }, nil))), context.Background(), ok, "CheckResult"},
		{"fallback of another type", NewPolicy(WithFallback(func(context.Context, error) (string, error) { return "", nil })), context.Background(), ok, "string"},
		{"result check of another type", NewPolicy(WithRetry(CheckResult(func(string) error { return nil }, nil))), context.Background(), ok, "CheckResult"},
		{"nil context", NewPolicy(), nil, ok, "nil context"},
		{"nil function", NewPolicy(), context.Background(), nil, "nil function"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			fn := c.fn
			if fn != nil {
				fn = func(ctx context.Context) (int, error) { calls++; return c.fn(ctx) }
			}
			_, err := Execute(c.ctx, c.p, fn)
			re := specAsError(t, err)
			if !errors.Is(re.Cause, ErrInvalidConfiguration) || !strings.Contains(err.Error(), c.word) {
				t.Errorf("Cause %v, want an ErrInvalidConfiguration naming %q", re.Cause, c.word)
			}
			if calls != 0 {
				t.Errorf("%d calls, want none", calls)
			}
		})
	}
}

// A Policy without a retry stage gives the function one attempt; its
// failure is an *Error with Cause ErrExhausted, a Permanent one
// ErrPermanent.
func TestPolicyWithoutRetry(t *testing.T) {
	p := NewPolicy()
	calls := 0
	v, err := Execute(context.Background(), p, func(context.Context) (int, error) { calls++; return 5, io.EOF })
	re := specCheckStop(t, err, ErrExhausted, io.EOF)
	if calls != 1 || v != 5 || re.Attempts != 1 {
		t.Errorf("calls %d, result %d, Attempts %d; want 1, the last result 5, 1", calls, v, re.Attempts)
	}
	err = p.Execute(context.Background(), func(context.Context) error { return Permanent(io.EOF) })
	specCheckStop(t, err, ErrPermanent, io.EOF)
	if err := p.Execute(context.Background(), func(context.Context) error { return nil }); err != nil {
		t.Errorf("success: %v", err)
	}
}

// "The order is the user's: retry outside the breaker means each attempt
// passes the breaker; the other way round, the breaker sees the whole
// retry loop."
func TestPolicyOrderIsTheCallers(t *testing.T) {
	run := func(stages ...Stage) {
		t.Helper()
		op := specFailThenSucceed(2)
		if v, err := Execute(context.Background(), NewPolicy(stages...), func(context.Context) (int, error) { return op.run() }); err != nil || v != 100 {
			t.Fatalf("(%d, %v), want (100, nil)", v, err)
		}
	}
	var events []string
	g := &specGuardLog{name: "g", events: &events}
	zero := WithRetry(WithBackOff(&ZeroBackOff{}))
	run(zero, WithGuard(g))
	if want := []string{"g.allow(1)", "g.record(1)", "g.allow(2)", "g.record(2)", "g.allow(3)", "g.record(3)"}; !slices.Equal(events, want) {
		t.Errorf("guard inside the retry stage: %v, want %v", events, want)
	}
	events = nil
	run(WithGuard(g), zero)
	if want := []string{"g.allow(1)", "g.record(4)"}; !slices.Equal(events, want) {
		t.Errorf("guard outside the retry stage: %v, want %v", events, want)
	}
	if o := g.outcomes[len(g.outcomes)-1]; o.Err != nil || o.Abandoned {
		t.Errorf("the outer guard saw %+v for a call that succeeded at the third attempt", o)
	}
}

// Execute never starts the function once ctx is done, as Do; the outermost
// retry stage reports it as a run that never started.
func TestPolicyWithAContextAlreadyDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := &specInstrumenter{}
	calls := 0
	err := NewPolicy(WithRetry(WithInstrumenter(in))).Execute(ctx, func(context.Context) error { calls++; return nil })
	re := specCheckStop(t, err, context.Canceled, nil)
	if calls != 0 || re.Attempts != 0 {
		t.Errorf("calls %d, Attempts %d; want 0, 0", calls, re.Attempts)
	}
	if len(in.events) != 1 || !in.events[0].s.GivingUp || in.events[0].s.Attempt != 0 {
		t.Errorf("instrumented events %+v, want one GivingUp at Attempt 0", in.events)
	}
	if err := NewPolicy().Execute(ctx, func(context.Context) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("without a retry stage: %v, want context.Canceled", err)
	}
}

// One Policy shared by many goroutines: each call has its own attempts,
// waits and copy of the BackOff (run with -race).
func TestPolicySharedAcrossGoroutines(t *testing.T) {
	clk := newSpecClock()
	p := NewPolicy(WithRetry(WithClock(clk), WithBackOff(specExp(time.Second, time.Minute)), WithMaxTries(4)))
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	results := make(chan int, n)
	done := make(chan struct{})
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			op := specFailThenSucceed(2)
			v, err := Execute(context.Background(), p, func(context.Context) (int, error) { return op.run() })
			errs <- err
			if v != 100 {
				t.Errorf("result %d, want 100", v)
			}
			results <- op.count()
		}()
	}
	go func() { wg.Wait(); close(done) }()
	guard := time.NewTimer(specGuard)
	defer guard.Stop()
	var waits []time.Duration
	for running := true; running; {
		select {
		case d := <-clk.waits:
			waits = append(waits, d)
			clk.Add(d)
		case <-done:
			running = false
		case <-guard.C:
			t.Fatal("the calls did not return")
		}
	}
	for len(clk.waits) > 0 {
		waits = append(waits, <-clk.waits)
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		if got := <-results; got != 3 {
			t.Errorf("a call made %d attempts, want 3", got)
		}
	}
	// Each call waited 1s then 2s: the sequence of its own copy.
	var ones, twos int
	for _, d := range waits {
		switch d {
		case time.Second:
			ones++
		case 2 * time.Second:
			twos++
		default:
			t.Errorf("a wait of %v", d)
		}
	}
	if ones != n || twos != n {
		t.Errorf("%d waits of 1s and %d of 2s, want %d of each", ones, twos, n)
	}
}
