package backoff

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// newLoop returns a Loop on the options opts.
func newLoop(opts ...RetryOption) *Loop { return NewRetrier(opts...).Loop() }

// specLoopWait calls l.Wait(ctx) and lets every wait it starts run to its
// end. It returns Wait's result and the waits it started.
func specLoopWait(t *testing.T, clk *specClock, l *Loop, ctx context.Context) (bool, []time.Duration) {
	t.Helper()
	var ok bool
	waits := specDrive(t, clk, nil, func() { ok = l.Wait(ctx) })
	return ok, waits
}

// specLoopStep is one expected call to Wait.
type specLoopStep struct {
	ok   bool
	wait time.Duration // the wait Wait starts; 0 means none
}

func specRunLoop(t *testing.T, clk *specClock, l *Loop, ctx context.Context, steps []specLoopStep) {
	t.Helper()
	for i, st := range steps {
		start := clk.Now()
		ok, waits := specLoopWait(t, clk, l, ctx)
		var want []time.Duration
		if st.wait > 0 {
			want = []time.Duration{st.wait}
		}
		if ok != st.ok || !slices.Equal(waits, want) {
			t.Fatalf("Wait %d: %v after waits %v, want %v after %v", i+1, ok, waits, st.ok, want)
		}
		if got := clk.Now().Sub(start); got != st.wait {
			t.Fatalf("Wait %d took %v, want %v", i+1, got, st.wait)
		}
	}
}

// "The first call returns true at once; each later call waits the next
// backoff, then returns true." Attempt is 1-based, Elapsed runs on the
// Loop's clock, Err is nil while Wait returns true.
func TestLoopWaitsTheBackOffsIntervals(t *testing.T) {
	clk := newSpecClock()
	l := newLoop(WithClock(clk), WithBackOff(specExp(time.Second, time.Minute)))
	if l.Err() != nil {
		t.Fatalf("Err() = %v before any Wait, want nil", l.Err())
	}
	s := time.Second
	var elapsed time.Duration
	for i, wait := range []time.Duration{0, s, 2 * s, 4 * s, 8 * s} {
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, wait}})
		elapsed += wait
		if l.Attempt() != i+1 {
			t.Errorf("after Wait %d, Attempt() = %d, want %d", i+1, l.Attempt(), i+1)
		}
		if l.Elapsed(context.Background()) != elapsed {
			t.Errorf("after Wait %d, Elapsed() = %v, want %v", i+1, l.Elapsed(context.Background()), elapsed)
		}
		if l.Err() != nil {
			t.Errorf("after Wait %d returned true, Err() = %v, want nil", i+1, l.Err())
		}
	}
}

// Wait returns false when a budget is spent or ctx is done, without
// sleeping, and Err reports the stop's Cause in an *Error.
func TestLoopEnds(t *testing.T) {
	s := time.Second
	errShutdown := errors.New("shutting down")
	cases := []struct {
		name  string
		opts  []RetryOption
		ctx   func() context.Context
		steps []specLoopStep
		cause error
	}{
		{"MaxTries", []RetryOption{WithMaxTries(3), WithBackOff(NewConstantBackOff(s))}, nil,
			[]specLoopStep{{true, 0}, {true, s}, {true, s}, {false, 0}}, ErrExhausted},
		{"MaxElapsedTime", []RetryOption{WithMaxElapsedTime(2500 * time.Millisecond), WithBackOff(NewConstantBackOff(s))}, nil,
			[]specLoopStep{{true, 0}, {true, s}, {true, s}, {false, 0}}, ErrMaxElapsedTime},
		{"default MaxElapsedTime", []RetryOption{WithBackOff(NewConstantBackOff(6 * time.Minute))}, nil,
			[]specLoopStep{{true, 0}, {true, 6 * time.Minute}, {true, 6 * time.Minute}, {false, 0}}, ErrMaxElapsedTime},
		{"BackOff Stop", []RetryOption{WithBackOff(&specBackOff{seq: []time.Duration{s, 2 * s}})}, nil,
			[]specLoopStep{{true, 0}, {true, s}, {true, 2 * s}, {false, 0}}, ErrExhausted},
		{"StopBackOff", []RetryOption{WithBackOff(&StopBackOff{})}, nil,
			[]specLoopStep{{true, 0}, {false, 0}}, ErrExhausted},
		{"context cancelled", nil, func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, []specLoopStep{{false, 0}}, context.Canceled},
		{"context cancelled with a cause", nil, func() context.Context {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(errShutdown)
			return ctx
		}, []specLoopStep{{false, 0}}, errShutdown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := newSpecClock()
			l := newLoop(append(c.opts, WithClock(clk))...)
			ctx := context.Background()
			if c.ctx != nil {
				ctx = c.ctx()
			}
			specRunLoop(t, clk, l, ctx, c.steps)
			re := specAsError(t, l.Err())
			if re.Cause != c.cause {
				t.Errorf("Err().Cause = %v, want %v", re.Cause, c.cause)
			}
		})
	}
}

// A context cancelled during a wait ends it at once.
func TestLoopEndsWhenCancelledDuringAWait(t *testing.T) {
	clk := newSpecClock()
	l := newLoop(WithClock(clk), WithBackOff(NewConstantBackOff(time.Minute)))
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	errShutdown := errors.New("shutting down")
	specRunLoop(t, clk, l, ctx, []specLoopStep{{true, 0}})
	var ok bool
	waits := specDrive(t, clk, func(int, time.Duration) { cancel(errShutdown) }, func() { ok = l.Wait(ctx) })
	if ok || len(waits) != 1 {
		t.Fatalf("Wait = %v after waits %v, want false during the wait", ok, waits)
	}
	if re := specAsError(t, l.Err()); re.Cause != errShutdown {
		t.Errorf("Err().Cause = %v, want %v", re.Cause, errShutdown)
	}
}

// "without sleeping into a deadline": on virtual time, Wait returns false
// at once when the next wait would end after ctx's deadline.
func TestLoopDoesNotSleepIntoTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		l := newLoop(WithBackOff(NewConstantBackOff(2 * time.Second)))
		start := time.Now()
		var trues int
		for l.Wait(ctx) {
			trues++
		}
		if trues != 3 {
			t.Errorf("Wait returned true %d times, want 3 (at 0s, 2s, 4s)", trues)
		}
		if got := time.Since(start); got != 4*time.Second {
			t.Errorf("the loop ended after %v, want 4s: no sleeping into the deadline", got)
		}
		if re := specAsError(t, l.Err()); re.Cause != context.DeadlineExceeded {
			t.Errorf("Err().Cause = %v, want context.DeadlineExceeded", re.Cause)
		}
	})
}

// "Reset(): the sequence, the attempt count and the budgets start over,
// and the next Wait waits the first interval of the fresh sequence: it
// never returns at once."
func TestLoopReset(t *testing.T) {
	s := time.Second
	t.Run("sequence and attempts", func(t *testing.T) {
		clk := newSpecClock()
		l := newLoop(WithClock(clk), WithBackOff(specExp(s, time.Minute)))
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, 0}, {true, s}, {true, 2 * s}})
		l.Reset()
		if l.Attempt() != 0 {
			t.Errorf("after Reset, Attempt() = %d, want 0", l.Attempt())
		}
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, s}})
		if l.Attempt() != 1 || l.Elapsed(context.Background()) != s {
			t.Errorf("after Reset and Wait, Attempt %d Elapsed %v; want 1 and 1s", l.Attempt(), l.Elapsed(context.Background()))
		}
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, 2 * s}, {true, 4 * s}})
		if l.Attempt() != 3 || l.Elapsed(context.Background()) != 7*s {
			t.Errorf("Attempt %d Elapsed %v; want 3 and 7s", l.Attempt(), l.Elapsed(context.Background()))
		}
	})
	t.Run("MaxTries starts over", func(t *testing.T) {
		clk := newSpecClock()
		l := newLoop(WithClock(clk), WithMaxTries(2), WithBackOff(NewConstantBackOff(s)))
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, 0}, {true, s}, {false, 0}})
		l.Reset()
		if l.Err() != nil {
			t.Errorf("Err() = %v after Reset, want nil", l.Err())
		}
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, s}, {true, s}, {false, 0}})
	})
	t.Run("MaxElapsedTime starts over", func(t *testing.T) {
		clk := newSpecClock()
		l := newLoop(WithClock(clk), WithMaxElapsedTime(2500*time.Millisecond), WithBackOff(NewConstantBackOff(s)))
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, 0}, {true, s}, {true, s}})
		l.Reset()
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, s}, {true, s}, {false, 0}})
	})
	t.Run("a success between failures", func(t *testing.T) {
		// The supervisor pattern: fail, fail, connect (Reset), fail.
		clk := newSpecClock()
		l := newLoop(WithClock(clk), WithBackOff(specExp(s, time.Minute)))
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, 0}, {true, s}, {true, 2 * s}, {true, 4 * s}})
		l.Reset()
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, s}, {true, 2 * s}})
	})
	t.Run("before the first Wait", func(t *testing.T) {
		clk := newSpecClock()
		l := newLoop(WithClock(clk), WithBackOff(NewConstantBackOff(s)))
		l.Reset()
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, 0}, {true, s}})
	})
}

// Override(d) names the next wait by the rule of every entry point: the
// BackOff is asked first, then d replaces its wait and the sequence
// starts over; the budgets, the bound on named waits and the deadline
// still apply.
func TestLoopOverride(t *testing.T) {
	s := time.Second
	t.Run("the next wait only", func(t *testing.T) {
		clk := newSpecClock()
		l := newLoop(WithClock(clk), WithBackOff(specExp(s, time.Minute)))
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, 0}, {true, s}})
		l.Override(30 * s)
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, 30 * s}, {true, s}, {true, 2 * s}})
		if l.Attempt() != 5 {
			t.Errorf("Attempt() = %d, want 5", l.Attempt())
		}
	})
	t.Run("before the first wait", func(t *testing.T) {
		clk := newSpecClock()
		l := newLoop(WithClock(clk), WithBackOff(specExp(s, time.Minute)))
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, 0}})
		l.Override(7 * s)
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, 7 * s}, {true, s}})
	})
	t.Run("the BackOff's Stop still applies", func(t *testing.T) {
		clk := newSpecClock()
		l := newLoop(WithClock(clk), WithBackOff(&StopBackOff{}))
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, 0}})
		l.Override(s)
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{false, 0}})
		if re := specAsError(t, l.Err()); re.Cause != ErrExhausted {
			t.Errorf("Err().Cause = %v, want ErrExhausted", re.Cause)
		}
	})
	t.Run("a named wait past WithMaxRetryAfter is not slept", func(t *testing.T) {
		clk := newSpecClock()
		l := newLoop(WithClock(clk), WithBackOff(NewConstantBackOff(s)))
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, 0}})
		l.Override(DefaultMaxRetryAfter + 1)
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{false, 0}})
		if re := specAsError(t, l.Err()); !errors.Is(re.Cause, ErrRetryAfterTooLong) {
			t.Errorf("Err().Cause = %v, want ErrRetryAfterTooLong", re.Cause)
		}
	})
	t.Run("MaxElapsedTime still applies", func(t *testing.T) {
		clk := newSpecClock()
		l := newLoop(WithClock(clk), WithMaxElapsedTime(10*time.Minute), WithMaxRetryAfter(2*time.Hour), WithBackOff(NewConstantBackOff(s)))
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, 0}})
		l.Override(time.Hour)
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{false, 0}})
		if re := specAsError(t, l.Err()); re.Cause != ErrMaxElapsedTime {
			t.Errorf("Err().Cause = %v, want ErrMaxElapsedTime", re.Cause)
		}
	})
	t.Run("MaxTries still applies", func(t *testing.T) {
		clk := newSpecClock()
		l := newLoop(WithClock(clk), WithMaxTries(2), WithBackOff(NewConstantBackOff(s)))
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, 0}, {true, s}})
		l.Override(s)
		specRunLoop(t, clk, l, context.Background(), []specLoopStep{{false, 0}})
		if re := specAsError(t, l.Err()); re.Cause != ErrExhausted {
			t.Errorf("Err().Cause = %v, want ErrExhausted", re.Cause)
		}
	})
	t.Run("the deadline still applies", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			l := newLoop(WithBackOff(NewConstantBackOff(s)), WithMaxElapsedTime(0), WithMaxRetryAfter(2*time.Hour))
			start := time.Now()
			if !l.Wait(ctx) {
				t.Fatal("the first Wait returned false")
			}
			l.Override(time.Hour)
			if l.Wait(ctx) {
				t.Fatal("Wait returned true for an override past the deadline")
			}
			if got := time.Since(start); got != 0 {
				t.Errorf("Wait slept %v into the deadline", got)
			}
			if re := specAsError(t, l.Err()); re.Cause != context.DeadlineExceeded {
				t.Errorf("Err().Cause = %v, want context.DeadlineExceeded", re.Cause)
			}
		})
	})
}

// An invalid option or a nil context makes Wait return false at once, and
// Err report ErrInvalidConfiguration naming the setting.
func TestLoopRejectsMisconfiguration(t *testing.T) {
	cases := []struct {
		name  string
		opts  []RetryOption
		ctx   context.Context
		field string
	}{
		{"nil BackOff", []RetryOption{WithBackOff(nil)}, context.Background(), "BackOff"},
		{"bad BackOff", []RetryOption{WithBackOff(NewExponentialBackOff(WithMultiplier(0.5)))}, context.Background(), "Multiplier"},
		{"negative MaxElapsedTime", []RetryOption{WithMaxElapsedTime(-1)}, context.Background(), "MaxElapsedTime"},
		{"nil clock", []RetryOption{WithClock(nil)}, context.Background(), "clock"},
		{"nil context", nil, nil, "context"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := newLoop(c.opts...)
			if l.Wait(c.ctx) {
				t.Fatal("Wait returned true")
			}
			err := l.Err()
			re := specAsError(t, err)
			if !errors.Is(re.Cause, ErrInvalidConfiguration) {
				t.Errorf("Err().Cause = %v, want ErrInvalidConfiguration", re.Cause)
			}
			if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(c.field)) {
				t.Errorf("message %q does not name %q", err.Error(), c.field)
			}
		})
	}
}

// The Loop honours WithClock for the deadline as the driver should: a wait
// that ends before ctx's deadline on the Loop's own clock is made.
func TestLoopDeadlineOnTheLoopsClock(t *testing.T) {
	clk := newSpecClock()
	ctx, cancel := clk.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l := newLoop(WithClock(clk), WithBackOff(NewConstantBackOff(time.Second)))
	specRunLoop(t, clk, l, ctx, []specLoopStep{{true, 0}, {true, time.Second}, {true, time.Second}})
}

// Reset restarts a custom BackOff too.
func TestLoopResetRestartsACustomBackOff(t *testing.T) {
	s := time.Second
	clk := newSpecClock()
	b := &specBackOff{seq: []time.Duration{s, 2 * s, 3 * s}}
	l := newLoop(WithClock(clk), WithBackOff(b))
	specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, 0}, {true, s}, {true, 2 * s}})
	l.Reset()
	specRunLoop(t, clk, l, context.Background(), []specLoopStep{{true, s}, {true, 2 * s}})
}

// Options about an operation would do nothing on a Loop: they are reported,
// not ignored, and the Loop admits no attempt.
func TestLoopRejectsOptionsItCannotUse(t *testing.T) {
	cases := []struct {
		opt  RetryOption
		name string
	}{
		{WithNotify(func(error, time.Duration) {}), "WithNotify"},
		{WithRetryable(func(error) bool { return true }), "WithRetryable"},
		{WithInstrumenter(nopInstrumenter{}), "WithInstrumenter"},
	}
	for _, c := range cases {
		loop := newLoop(WithMaxTries(3), c.opt)
		if loop.Wait(context.Background()) {
			t.Errorf("%s: the first Wait admitted an attempt", c.name)
		}
		err := loop.Err()
		if !errors.Is(err, ErrInvalidConfiguration) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: Err() = %v, want an ErrInvalidConfiguration naming it", c.name, err)
		}
	}
	// The options a Loop takes, and a nil Notify (which sets nothing),
	// are accepted.
	loop := newLoop(WithBackOff(&ZeroBackOff{}), WithMaxTries(2), WithMaxElapsedTime(time.Minute),
		WithClock(newSpecClock()), WithNotify(nil))
	if !loop.Wait(context.Background()) || loop.Err() != nil {
		t.Fatalf("a Loop with the options it takes: Err() = %v", loop.Err())
	}
}

// Once Wait has returned false it keeps returning false, without waiting,
// until Reset.
func TestLoopStaysStoppedUntilReset(t *testing.T) {
	clk := newSpecClock()
	loop := newLoop(WithMaxTries(1), WithMaxElapsedTime(0), WithClock(clk), WithBackOff(NewConstantBackOff(time.Hour)))
	ctx := context.Background()
	if !loop.Wait(ctx) || loop.Wait(ctx) || loop.Wait(ctx) {
		t.Fatal("want true, then false, false")
	}
	if !errors.Is(loop.Err(), ErrExhausted) || len(clk.Waits) != 0 {
		t.Fatalf("Err() = %v after %d waits, want ErrExhausted and none", loop.Err(), len(clk.Waits))
	}
	loop.Reset()
	specRunLoop(t, clk, loop, ctx, []specLoopStep{{true, time.Hour}})
	if loop.Err() != nil || loop.Attempt() != 1 {
		t.Fatalf("after Reset: Err() = %v, Attempt() = %d", loop.Err(), loop.Attempt())
	}
}

// The zero Loop is NewRetrier().Loop(): usable, with the driver's
// defaults.
func TestLoopZeroValue(t *testing.T) {
	var l Loop
	if l.Elapsed(context.Background()) != 0 || l.Attempt() != 0 || l.Err() != nil {
		t.Fatalf("a zero Loop: Elapsed %v Attempt %d Err %v", l.Elapsed(context.Background()), l.Attempt(), l.Err())
	}
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		for i := 1; i <= 3; i++ {
			if !l.Wait(ctx) || l.Attempt() != i {
				t.Fatalf("Wait %d: false or Attempt %d (%v)", i, l.Attempt(), l.Err())
			}
		}
	})
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if l.Wait(cctx) || !errors.Is(l.Err(), context.Canceled) {
		t.Errorf("a zero Loop on a cancelled context: Err() = %v, want context.Canceled", l.Err())
	}
}
