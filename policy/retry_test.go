package policy_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	"github.com/herdsafe/backoff/policy"
)

// The retry stage's defaults: DefaultMaxTries attempts, with full jitter
// (each wait within [0, nominal] of 100ms doubling).
func TestRetryDefaults(t *testing.T) {
	clk := spectest.NewClock()
	p := policy.New(policy.Retry(backoff.WithClock(clk)))
	op := spectest.Always()
	var err error
	waits := spectest.Drive(t, clk, nil, func() {
		_, err = policy.Do(context.Background(), p, run(op))
	})
	re := checkStop(t, err, backoff.ErrExhausted, spectest.AttemptErr(policy.DefaultMaxTries))
	if op.Count() != policy.DefaultMaxTries || re.Attempts != policy.DefaultMaxTries || len(waits) > policy.DefaultMaxTries-1 {
		t.Fatalf("%d attempts (Attempts %d) after waits %v, want %d attempts", op.Count(), re.Attempts, waits, policy.DefaultMaxTries)
	}
	for i, d := range waits {
		if nominal := 100 * time.Millisecond << i; d < 0 || d > nominal {
			t.Errorf("wait %d is %v, want it in [0, %v]", i+1, d, nominal)
		}
	}
	if policy.DefaultMaxTries != 3 {
		t.Errorf("DefaultMaxTries = %d, want 3", policy.DefaultMaxTries)
	}
}

// The retry stage has no time budget of its own (it used to have 30 s
// counted from the first failure): a Retry-After longer than that, within
// the bound on named waits, is waited in full, and the next attempt made.
func TestRetryHasNoTimeBudget(t *testing.T) {
	clk := spectest.NewClock()
	calls := 0
	var err error
	waits := spectest.Drive(t, clk, nil, func() {
		err = policy.New(policy.Retry(backoff.WithClock(clk), backoff.WithMaxRetryAfter(2*time.Hour))).DoErr(context.Background(), func(context.Context) error {
			if calls++; calls == 1 {
				return backoff.RetryAfter(time.Hour, io.EOF)
			}
			return nil
		})
	})
	if err != nil || calls != 2 || !slices.Equal(waits, []time.Duration{time.Hour}) {
		t.Errorf("%v after %d calls and waits %v; want success at the second call after a wait of 1h", err, calls, waits)
	}
}

// DefaultBackOff: full jitter over a nominal interval of 100 ms that
// doubles after each retry, capped at 5 s; each call returns a fresh one.
func TestDefaultBackOff(t *testing.T) {
	b := policy.DefaultBackOff()
	if b.InitialInterval != 100*time.Millisecond || b.Multiplier != 2 || b.MaxInterval != 5*time.Second || b.Jitter != backoff.FullJitter {
		t.Fatalf("DefaultBackOff() = %+v", b)
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	b.Random = func() float64 { return 1 } // the top of each range: the nominal interval
	var got []time.Duration
	for range 8 {
		got = append(got, b.NextBackOff())
	}
	ms := time.Millisecond
	if want := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 5 * time.Second, 5 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("nominal waits %v, want %v", got, want)
	}
	b = policy.DefaultBackOff()
	b.Random = func() float64 { return 0 } // the bottom of each range
	for i := range 4 {
		if d := b.NextBackOff(); d != 0 {
			t.Errorf("wait %d with a random draw of 0: %v, want 0", i+1, d)
		}
	}
	// The randomization factor is the package's default, for a caller who
	// changes the Jitter to RandomizationJitter: ±50% of the nominal.
	b = policy.DefaultBackOff()
	b.Jitter, b.Random = backoff.RandomizationJitter, func() float64 { return 1 }
	if d := b.NextBackOff(); d != 150*time.Millisecond {
		t.Errorf("the first wait under RandomizationJitter at the top of its range: %v, want 150ms", d)
	}
	b.InitialInterval = time.Hour
	if policy.DefaultBackOff().InitialInterval != 100*time.Millisecond {
		t.Error("a change to one DefaultBackOff reached the next")
	}
}

// The options given replace the defaults: the attempt limit, the BackOff,
// and a time budget, which the stage has none of by default.
func TestRetryOptionsReplaceTheDefaults(t *testing.T) {
	t.Run("WithMaxTries(0) removes the limit", func(t *testing.T) {
		op := spectest.FailThenSucceed(10)
		v, err := policy.Do(context.Background(), policy.New(policy.Retry(zero(), backoff.WithMaxTries(0))), run(op))
		if err != nil || v != 100 || op.Count() != 11 {
			t.Errorf("(%d, %v) after %d attempts, want (100, nil) after 11", v, err, op.Count())
		}
	})
	t.Run("WithMaxTries(5)", func(t *testing.T) {
		op := spectest.FailThenSucceed(2)
		v, err := policy.Do(context.Background(), policy.New(policy.Retry(zero(), backoff.WithMaxTries(5))), run(op))
		if err != nil || v != 100 || op.Count() != 3 {
			t.Errorf("(%d, %v) after %d attempts, want (100, nil) after 3", v, err, op.Count())
		}
		op = spectest.Always()
		v, err = policy.Do(context.Background(), policy.New(policy.Retry(zero(), backoff.WithMaxTries(5))), run(op))
		re := checkStop(t, err, backoff.ErrExhausted, spectest.AttemptErr(5))
		if v != 5 || re.Attempts != 5 || op.Count() != 5 {
			t.Errorf("result %d, Attempts %d, calls %d; want the last result 5, 5, 5", v, re.Attempts, op.Count())
		}
	})
	t.Run("WithBackOff", func(t *testing.T) {
		clk := spectest.NewClock()
		op := spectest.FailThenSucceed(3)
		var err error
		waits := spectest.Drive(t, clk, nil, func() {
			_, err = policy.Do(context.Background(), policy.New(policy.Retry(backoff.WithClock(clk),
				backoff.WithBackOff(exp(time.Second, time.Minute)), backoff.WithMaxTries(4))), run(op))
		})
		if want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}; err != nil || !slices.Equal(waits, want) {
			t.Errorf("%v after waits %v, want success after %v", err, waits, want)
		}
	})
	t.Run("WithMaxElapsedTime", func(t *testing.T) {
		clk := spectest.NewClock()
		op := spectest.Always()
		var err error
		waits := spectest.Drive(t, clk, nil, func() {
			_, err = policy.Do(context.Background(), policy.New(policy.Retry(backoff.WithClock(clk),
				backoff.WithBackOff(backoff.NewConstantBackOff(time.Second)), backoff.WithMaxTries(0),
				backoff.WithMaxElapsedTime(2500*time.Millisecond))), run(op))
		})
		re := checkStop(t, err, backoff.ErrMaxElapsedTime, spectest.AttemptErr(3))
		if op.Count() != 3 || len(waits) != 2 || re.Elapsed != 2*time.Second {
			t.Errorf("%d attempts, waits %v, Elapsed %v; want 3 attempts after 2 waits of 1s (the third would overrun)", op.Count(), waits, re.Elapsed)
		}
	})
	t.Run("WithRetryable", func(t *testing.T) {
		calls := 0
		err := policy.New(policy.Retry(zero(), backoff.WithRetryable(func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }))).
			DoErr(context.Background(), func(context.Context) error { calls++; return io.EOF })
		checkStop(t, err, backoff.ErrPermanent, io.EOF)
		if calls != 1 {
			t.Errorf("%d calls, want 1: the classifier rejects io.EOF", calls)
		}
	})
}

// A guard inside a retry stage sees the number of the attempt of the
// innermost retry stage around it; nested stages count their own.
func TestRetryStagesCountTheirOwnAttempts(t *testing.T) {
	var events []string
	outer := &guardLog{name: "outer", events: &events}
	inner := &guardLog{name: "inner", events: &events}
	two := backoff.WithMaxTries(2)
	p := policy.New(policy.Retry(zero(), two), policy.Guard(outer), policy.Retry(zero(), two), policy.Guard(inner))
	op := spectest.Always()
	_, err := policy.Do(context.Background(), p, run(op))
	// The inner stage's failure is an *Error, which the outer stage retries
	// as any error, and reports as its own LastErr.
	re := checkStop(t, err, backoff.ErrExhausted, spectest.AttemptErr(4))
	if re.Attempts != 2 || op.Count() != 4 {
		t.Errorf("Attempts %d, calls %d; want 2 attempts of the outer stage, 4 calls", re.Attempts, op.Count())
	}
	want := []string{
		"outer.allow(1)", "inner.allow(1)", "inner.record(1)", "inner.allow(2)", "inner.record(2)", "outer.record(1)",
		"outer.allow(2)", "inner.allow(1)", "inner.record(3)", "inner.allow(2)", "inner.record(4)", "outer.record(2)",
	}
	if !slices.Equal(events, want) {
		t.Errorf("events\n%v, want\n%v", events, want)
	}
}

// A Stage is a value: the same retry stage serves several policies, and
// calls through them share nothing.
func TestRetryStageInSeveralPolicies(t *testing.T) {
	s := policy.Retry(zero(), backoff.WithMaxTries(2))
	a, b := policy.New(s), policy.New(policy.Guard(nopGuard{}), s)
	for _, p := range []*policy.Policy{a, b, a} {
		op := spectest.Always()
		_, err := policy.Do(context.Background(), p, run(op))
		if re := checkStop(t, err, backoff.ErrExhausted, spectest.AttemptErr(2)); re.Attempts != 2 || op.Count() != 2 {
			t.Errorf("Attempts %d, calls %d; want 2, 2", re.Attempts, op.Count())
		}
	}
}

// A retry stage's instrumenters see each attempt of the stage, numbered
// by it, and the give-up.
func TestRetryInstrumenters(t *testing.T) {
	in := &instrumenter{}
	p := policy.New(policy.Retry(zero(), backoff.WithInstrumenter(in)))
	_, err := policy.Do(context.Background(), p, run(spectest.Always()))
	checkStop(t, err, backoff.ErrExhausted, spectest.AttemptErr(3))
	var got []string
	for _, e := range in.events {
		got = append(got, e.method)
		if e.method == "after" && !errors.Is(e.s.Err, spectest.AttemptErr(e.s.Number)) {
			t.Errorf("AfterAttempt %d: Err %v, want the attempt's own", e.s.Number, e.s.Err)
		}
	}
	if want := []string{"before", "after", "before", "after", "before", "after"}; !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if last := in.events[5].s; last.Number != 3 || !last.GivingUp || last.Cause != backoff.ErrExhausted || last.MaxTries != policy.DefaultMaxTries {
		t.Errorf("the last State %+v, want attempt 3 giving up, ErrExhausted, MaxTries %d", last, policy.DefaultMaxTries)
	}
}

// A default retry stage does not sleep a named wait past the core's bound
// (backoff.DefaultMaxRetryAfter): it stops at once, keeping the error.
func TestRetryStageBoundsANamedWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := policy.New(policy.Retry())
		cause := errors.New("busy")
		n, start := 0, time.Now()
		err := p.DoErr(context.Background(), func(context.Context) error {
			n++
			return backoff.RetryAfter(10*time.Minute, cause)
		})
		var re *backoff.Error
		if !errors.As(err, &re) || !errors.Is(re.Cause, backoff.ErrRetryAfterTooLong) || re.LastErr != cause || n != 1 || time.Since(start) != 0 {
			t.Errorf("%v after %d attempts and %v, want ErrRetryAfterTooLong at once", err, n, time.Since(start))
		}
	})
}
