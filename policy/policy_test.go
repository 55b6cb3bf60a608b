package policy_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	"github.com/herdsafe/backoff/policy"
)

// invalidGuard is a Guard whose Validate reports its settings wrong.
type invalidGuard struct {
	nopGuard
	err error
}

func (g *invalidGuard) Validate() error { return g.err }

// A Policy that cannot be used fails every call before anything runs, with
// a Cause that matches ErrInvalidConfiguration and names what is wrong.
func TestNewRejectsWhatItCannotUse(t *testing.T) {
	ok := func(context.Context) (int, error) { return 1, nil }
	bg := context.Background()
	cases := []struct {
		name string
		p    *policy.Policy
		ctx  context.Context
		fn   func(context.Context) (int, error)
		word string
	}{
		{"nil policy", nil, bg, ok, "nil *Policy"},
		{"zero Stage", policy.New(policy.Retry(), policy.Stage{}), bg, ok, "stage 2 is a zero Stage"},
		{"bad retry option", policy.New(policy.Retry(backoff.WithMaxElapsedTime(-1))), bg, ok, "stage 1"},
		{"bad BackOff", policy.New(policy.Retry(backoff.WithBackOff(backoff.NewConstantBackOff(-1)))), bg, ok, "Interval"},
		{"nil BackOff", policy.New(policy.Retry(backoff.WithBackOff(nil))), bg, ok, "stage 1"},
		{"zero timeout", policy.New(policy.Timeout(0)), bg, ok, "not positive"},
		{"negative timeout", policy.New(policy.Retry(), policy.Timeout(-time.Second)), bg, ok, "stage 2"},
		{"nil fallback", policy.New(policy.Fallback[int](nil)), bg, ok, "Fallback was given a nil function"},
		{"nil FallbackErr", policy.New(policy.FallbackErr(nil)), bg, ok, "FallbackErr was given a nil function"},
		{"fallback of another type", policy.New(policy.Fallback(func(context.Context, error) (string, error) { return "", nil })), bg, ok, "string"},
		{"nil guard", policy.New(policy.Guard(nil)), bg, ok, "nil guard.Guard"},
		{"typed nil guard", policy.New(policy.Guard((*guardLog)(nil))), bg, ok, "nil guard.Guard"},
		{"invalid guard", policy.New(policy.Guard(&invalidGuard{err: errors.New("the guard's limit is negative")})), bg, ok, "limit is negative"},
		{"the first bad stage", policy.New(policy.Timeout(0), policy.Retry(backoff.WithMaxElapsedTime(-1))), bg, ok, "stage 1: "},
		{"nil context", policy.New(), nil, ok, "nil context"},
		{"nil function", policy.New(), bg, nil, "nil function"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			fn := c.fn
			if fn != nil {
				fn = func(ctx context.Context) (int, error) { calls++; return c.fn(ctx) }
			}
			v, err := policy.Do(c.ctx, c.p, fn)
			re := asError(t, err)
			if !errors.Is(re.Cause, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), c.word) {
				t.Errorf("Cause %v, want an ErrInvalidConfiguration naming %q", re.Cause, c.word)
			}
			if calls != 0 || v != 0 || re.Attempts != 0 || re.LastErr != nil {
				t.Errorf("%d calls, result %d, Attempts %d, LastErr %v; want nothing run", calls, v, re.Attempts, re.LastErr)
			}
		})
	}
	t.Run("DoErr", func(t *testing.T) {
		var nilPolicy *policy.Policy
		for name, err := range map[string]error{
			"nil function": policy.New().DoErr(bg, nil),
			"nil *Policy":  nilPolicy.DoErr(bg, func(context.Context) error { return nil }),
		} {
			if re := asError(t, err); !errors.Is(re.Cause, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), name) {
				t.Errorf("Cause %v, want an ErrInvalidConfiguration naming %q", re.Cause, name)
			}
		}
	})
}

// A Policy without a retry stage gives the function one attempt; its
// failure is an *Error with Cause ErrExhausted, a Permanent one
// ErrPermanent.
func TestPolicyWithoutRetry(t *testing.T) {
	p := policy.New()
	calls := 0
	v, err := policy.Do(context.Background(), p, func(context.Context) (int, error) { calls++; return 5, io.EOF })
	re := checkStop(t, err, backoff.ErrExhausted, io.EOF)
	if calls != 1 || v != 5 || re.Attempts != 1 {
		t.Errorf("calls %d, result %d, Attempts %d; want 1, the last result 5, 1", calls, v, re.Attempts)
	}
	err = p.DoErr(context.Background(), func(context.Context) error { return backoff.Permanent(io.EOF) })
	if re := checkStop(t, err, backoff.ErrPermanent, io.EOF); re.Attempts != 1 {
		t.Errorf("Attempts %d, want 1", re.Attempts)
	}
	if err := p.DoErr(context.Background(), func(context.Context) error { return nil }); err != nil {
		t.Errorf("success: %v", err)
	}
	// The zero Policy is a Policy with no stage.
	var zeroPolicy policy.Policy
	if v, err := policy.Do(context.Background(), &zeroPolicy, func(context.Context) (int, error) { return 8, nil }); v != 8 || err != nil {
		t.Errorf("the zero Policy: (%d, %v), want (8, nil)", v, err)
	}
}

// The order is the caller's: a guard inside the retry stage sees every
// attempt; outside it, the whole retry loop as one call.
func TestPolicyOrderIsTheCallers(t *testing.T) {
	do := func(stages ...policy.Stage) {
		t.Helper()
		op := spectest.FailThenSucceed(2)
		if v, err := policy.Do(context.Background(), policy.New(stages...), run(op)); err != nil || v != 100 {
			t.Fatalf("(%d, %v), want (100, nil)", v, err)
		}
	}
	var events []string
	g := &guardLog{name: "g", events: &events}
	retry := policy.Retry(zero())
	do(retry, policy.Guard(g))
	if want := []string{"g.allow(1)", "g.record(1)", "g.allow(2)", "g.record(2)", "g.allow(3)", "g.record(3)"}; !slices.Equal(events, want) {
		t.Errorf("guard inside the retry stage: %v, want %v", events, want)
	}
	for i, o := range g.outcomes {
		if wantErr := spectest.AttemptErr(i + 1); i < 2 && !errors.Is(o.Err, wantErr) || i == 2 && o.Err != nil {
			t.Errorf("outcome %d: %+v, want the attempt's own", i+1, o)
		}
	}
	events = nil
	do(policy.Guard(g), retry)
	if want := []string{"g.allow(1)", "g.record(4)"}; !slices.Equal(events, want) {
		t.Errorf("guard outside the retry stage: %v, want %v", events, want)
	}
	if o := g.outcomes[len(g.outcomes)-1]; o.Err != nil || o.Abandoned {
		t.Errorf("the outer guard saw %+v for a call that succeeded at the third attempt", o)
	}
}

// Do never starts the function once ctx is done, whatever the stages: the
// call fails with the context's cause and no attempt. An instrumenter of
// a retry stage sees the refused attempt begin, and the give-up.
func TestPolicyWithAContextAlreadyDone(t *testing.T) {
	errGone := errors.New("the caller went away")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errGone)
	in := &instrumenter{}
	fallback := policy.FallbackErr(func(context.Context, error) error { t.Error("the fallback was called"); return nil })
	for name, p := range map[string]*policy.Policy{
		"no stage":               policy.New(),
		"retry":                  policy.New(policy.Retry(backoff.WithInstrumenter(in))),
		"guard":                  policy.New(policy.Guard(nopGuard{})),
		"guard around the retry": policy.New(policy.Guard(nopGuard{}), policy.Retry()),
		"timeout":                policy.New(policy.Timeout(time.Hour)),
		"recover":                policy.New(policy.Recover()),
		"fallback":               policy.New(fallback, policy.Retry()),
		"fallback, no retry":     policy.New(fallback),
	} {
		t.Run(name, func(t *testing.T) {
			calls := 0
			err := p.DoErr(ctx, func(context.Context) error { calls++; return nil })
			re := checkStop(t, err, errGone, nil)
			if calls != 0 || re.Attempts != 0 {
				t.Errorf("calls %d, Attempts %d; want 0, 0", calls, re.Attempts)
			}
		})
	}
	if len(in.events) != 2 || in.events[0].method != "before" || in.events[1].method != "after" ||
		!in.events[1].s.GivingUp || !errors.Is(in.events[1].s.Cause, errGone) {
		t.Errorf("instrumented events %+v, want the refused attempt's BeforeAttempt, then its give-up with the context's cause", in.events)
	}
}

// One Policy shared by many goroutines: each call has its own attempts,
// waits and copy of the BackOff (run with -race).
func TestPolicySharedAcrossGoroutines(t *testing.T) {
	clk := spectest.NewClock()
	p := policy.New(policy.Retry(backoff.WithClock(clk), backoff.WithBackOff(exp(time.Second, time.Minute)), backoff.WithMaxTries(4)))
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	counts := make(chan int, n)
	done := make(chan struct{})
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			op := spectest.FailThenSucceed(2)
			v, err := policy.Do(context.Background(), p, run(op))
			if err == nil && v != 100 {
				err = errors.New("a result other than 100")
			}
			errs <- err
			counts <- op.Count()
		}()
	}
	go func() { wg.Wait(); close(done) }()
	hang := time.NewTimer(spectest.Guard)
	defer hang.Stop()
	var waits []time.Duration
	for running := true; running; {
		select {
		case d := <-clk.Waits:
			waits = append(waits, d)
			clk.Add(d)
		case <-done:
			running = false
		case <-hang.C:
			t.Fatal("the calls did not return")
		}
	}
	for len(clk.Waits) > 0 {
		waits = append(waits, <-clk.Waits)
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
		if got := <-counts; got != 3 {
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

var (
	retryPolicy    = policy.New(policy.Retry(backoff.WithMaxTries(5)))
	guardedPolicy  = policy.New(policy.Retry(), policy.Guard(nopGuard{}))
	fallbackPolicy = policy.New(policy.Fallback(func(context.Context, error) (int, error) { return 0, nil }), policy.Retry())
	fallbackErrPol = policy.New(policy.FallbackErr(func(context.Context, error) error { return nil }), policy.Retry())
	recoverPolicy  = policy.New(policy.Retry(), policy.Recover())
	nestedPolicy   = policy.New(policy.Guard(nopGuard{}), policy.Retry(), policy.Guard(nopGuard{}), policy.Recover())
	emptyPolicy    = policy.New()
)

// A successful call through a Policy allocates nothing: the stages build
// nothing that only a retry, a refusal or a fallback needs.
func TestSuccessPathAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	one := func(context.Context) (int, error) { return 1, nil }
	cases := []struct {
		name string
		run  func()
	}{
		{"retry", func() { _, _ = policy.Do(ctx, retryPolicy, one) }},
		{"retry and a guard", func() { _, _ = policy.Do(ctx, guardedPolicy, one) }},
		{"a fallback", func() { _, _ = policy.Do(ctx, fallbackPolicy, one) }},
		{"a FallbackErr", func() { _, _ = policy.Do(ctx, fallbackErrPol, one) }},
		{"retry and recover", func() { _, _ = policy.Do(ctx, recoverPolicy, one) }},
		{"guards around and inside the retry", func() { _, _ = policy.Do(ctx, nestedPolicy, one) }},
		{"no stage", func() { _, _ = policy.Do(ctx, emptyPolicy, one) }},
		{"DoErr", func() { _ = retryPolicy.DoErr(ctx, func(context.Context) error { return nil }) }},
		{"DoErr, retry and a guard", func() { _ = guardedPolicy.DoErr(ctx, func(context.Context) error { return nil }) }},
		{"Attempts", func() { _ = retryPolicy.Attempts(ctx, func(context.Context, backoff.Attempt) error { return nil }) }},
		// A function that changes what it captured keeps it on the
		// caller's stack: what a Policy keeps of the function reaches no
		// further.
		{"Do, a function that counts its calls", func() {
			n := 0
			_, _ = policy.Do(ctx, nestedPolicy, func(context.Context) (int, error) { n++; return n, nil })
		}},
		{"DoErr, a function that counts its calls", func() {
			n := 0
			_ = nestedPolicy.DoErr(ctx, func(context.Context) error { n++; return nil })
		}},
		{"Attempts, a function that counts its calls", func() {
			n := 0
			_ = nestedPolicy.Attempts(ctx, func(context.Context, backoff.Attempt) error { n++; return nil })
		}},
		{"Attempts, guards around and inside the retry", func() {
			_ = nestedPolicy.Attempts(ctx, func(context.Context, backoff.Attempt) error { return nil })
		}},
	}
	for _, c := range cases {
		if n := testing.AllocsPerRun(200, c.run); n != 0 {
			t.Errorf("%s: %v allocations per successful call, want 0", c.name, n)
		}
	}
}

// A successful call through a Policy of retry stages reads no clock: the
// retry stage has no time budget unless given one.
func TestSuccessReadsNoClock(t *testing.T) {
	clk := &countingClock{Clock: spectest.NewClock()}
	p := policy.New(policy.Retry(backoff.WithClock(clk)))
	if v, err := policy.Do(context.Background(), p, func(context.Context) (int, error) { return 1, nil }); err != nil || v != 1 {
		t.Fatal(v, err)
	}
	if err := p.DoErr(context.Background(), func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	nested := policy.New(policy.Retry(backoff.WithClock(clk)), policy.Guard(nopGuard{}), policy.Retry(backoff.WithClock(clk)))
	if err := nested.DoErr(context.Background(), func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if n := clk.Calls(); n != 0 {
		t.Errorf("%d clock calls on success, want 0", n)
	}
	// The clock is the stage's: a time budget reads it at the call.
	p = policy.New(policy.Retry(backoff.WithClock(clk), backoff.WithMaxElapsedTime(time.Hour)))
	if err := p.DoErr(context.Background(), func(context.Context) error { return nil }); err != nil || clk.Calls() == 0 {
		t.Errorf("with a time budget: %d clock calls (%v), want at least 1", clk.Calls(), err)
	}
}

func BenchmarkDo(b *testing.B) {
	ctx := context.Background()
	fn := func(context.Context) (int, error) { return 1, nil }
	b.ReportAllocs()
	for b.Loop() {
		_, _ = policy.Do(ctx, guardedPolicy, fn)
	}
}
