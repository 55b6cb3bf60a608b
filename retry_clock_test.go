package backoff

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

// WithMaxElapsedTime counts from the call: a slow first attempt that fails
// gets no retry once it has spent the budget (cenkalti/backoff#188: Retry's rule,
// documented; per-attempt bounds are a context deadline inside the
// operation, or a Timeout stage of package policy).
func TestMaxElapsedTimeCountsTheFirstAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		op := specScript(func(n int) (int, error) {
			if n == 1 {
				<-time.After(10 * time.Second) // virtual time: the first attempt is slow
			}
			return n, attemptErr(n)
		})
		_, err := Retry(op.Run, WithBackOff(NewConstantBackOff(time.Second)), WithMaxElapsedTime(5*time.Second))
		re := specCheckStop(t, err, ErrMaxElapsedTime, attemptErr(1))
		if op.Count() != 1 || re.Elapsed != 10*time.Second {
			t.Errorf("%d attempts, Elapsed %v; want 1 attempt, and 10s since the call", op.Count(), re.Elapsed)
		}
	})
}

// A run with no WithMaxElapsedTime reads no clock before an attempt fails:
// a mock clock that counts its readings sees none on success.
func TestNoClockReadingOnSuccess(t *testing.T) {
	clk := &countingClock{specClock: newSpecClock()}
	if _, err := Retry(succeed, WithClock(clk), WithMaxElapsedTime(0)); err != nil {
		t.Fatal(err)
	}
	r := NewRetrier(WithClock(clk), WithMaxElapsedTime(0))
	if err := r.DoErr(context.Background(), func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if clk.reads != 0 {
		t.Errorf("%d clock readings on success, want 0", clk.reads)
	}
	// With the default 15-minute budget, counted from the call, one.
	if _, err := Retry(succeed, WithClock(clk)); err != nil || clk.reads != 1 {
		t.Errorf("Retry's default budget: %d readings, want 1 (%v)", clk.reads, err)
	}
}

type countingClock struct {
	*specClock
	reads int
}

func (c *countingClock) Since(t time.Time) time.Duration { c.reads++; return c.specClock.Since(t) }
func (c *countingClock) Now() time.Time                  { c.reads++; return c.specClock.Now() }

// WithMaxElapsedTime is "measured from when Retry is called": the time the
// attempts take counts, not only the waits. On a bubble's virtual time.
func TestDriverMaxElapsedTimeCountsTheAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		op := specScript(func(n int) (int, error) {
			<-time.After(2 * time.Second) // the attempt takes 2s of virtual time
			return n, attemptErr(n)
		})
		var n specNotify
		_, err := Retry(op.Run, WithBackOff(NewConstantBackOff(time.Second)),
			WithMaxElapsedTime(5500*time.Millisecond), WithNotify(n.Notify))
		// 0–2s attempt 1, 2–3s wait, 3–5s attempt 2; a wait to 6s would overrun.
		re := specCheckStop(t, err, ErrMaxElapsedTime, attemptErr(2))
		if op.Count() != 2 || len(n.Delays) != 1 || re.Elapsed != 5*time.Second {
			t.Errorf("%d attempts, waits %v, Elapsed %v; want 2, [1s], 5s", op.Count(), n.Delays, re.Elapsed)
		}
	})
}

// "When ctx has a deadline and the next wait would end after it, the
// driver stops at once instead of sleeping into the deadline, with Cause
// context.DeadlineExceeded and LastErr the operation's last real error."
// The default clock runs on a synctest bubble's virtual time.
func TestDriverStopsBeforeAWaitPastTheDeadline(t *testing.T) {
	s := time.Second
	cases := []struct {
		name     string
		b        BackOff
		op       func() *specOp
		attempts int
		stopAt   time.Duration // virtual time at which the driver returns
	}{
		{"first wait too long", NewConstantBackOff(10 * s), specAlways, 1, 0},
		{"third wait too long", NewConstantBackOff(2 * s), specAlways, 3, 4 * s},
		{"RetryAfter too long", NewConstantBackOff(s), func() *specOp {
			return specScript(func(n int) (int, error) { return n, RetryAfter(time.Minute, attemptErr(n)) })
		}, 1, 0},
	}
	for _, c := range cases {
		for _, e := range specCtxEntries {
			t.Run(c.name+"/"+e.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), 5*s)
					defer cancel()
					start := time.Now()
					op := c.op()
					var n specNotify
					_, err := e.run(ctx, op.Run, WithBackOff(c.b), WithNotify(n.Notify), WithMaxRetryAfter(time.Hour))
					if len(n.Errs) != c.attempts-1 {
						t.Errorf("Notify called %d times, want %d: never for the final error", len(n.Errs), c.attempts-1)
					}
					if got := time.Since(start); got != c.stopAt {
						t.Errorf("returned after %v, want %v: no sleeping into the deadline", got, c.stopAt)
					}
					re := specCheckStop(t, err, context.DeadlineExceeded, attemptErr(c.attempts))
					if re.Attempts != c.attempts || op.Count() != c.attempts {
						t.Errorf("Attempts = %d, ran %d times, want %d", re.Attempts, op.Count(), c.attempts)
					}
				})
			})
		}
	}
}

// A mock clock's own deadline is on the clock the driver waits on: with
// WithClock(c), a wait that ends before ctx's deadline, as c tells time, is
// not one that "would end after it".
func TestDriverDeadlineOnTheDriversClock(t *testing.T) {
	for _, e := range specCtxEntries {
		t.Run(e.name, func(t *testing.T) {
			clk := newSpecClock()
			ctx, cancel := clk.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			op := specFailThenSucceed(3)
			var err error
			waits := specDrive(t, clk, nil, func() {
				_, err = e.run(ctx, op.Run, WithClock(clk), WithBackOff(NewConstantBackOff(time.Second)))
			})
			if err != nil {
				var re *Error
				errors.As(err, &re)
				t.Fatalf("got %v (Cause %v) after %d attempts and waits %v; want success after 3 waits of 1s, all within the 1m deadline on the driver's clock",
					err, re.Cause, op.Count(), waits)
			}
			if len(waits) != 3 {
				t.Errorf("waits %v, want 3", waits)
			}
		})
	}
}

// Cancelling a run in the middle of its wait leaves nothing behind: no
// goroutine, and no timer still pending on the clock.
func TestDriverLeavesNothingBehindAfterCancelledWaits(t *testing.T) {
	defer goleak.VerifyNone(t)
	const runs = 1000
	t.Run("mock clock", func(t *testing.T) {
		clk := newSpecClock()
		for i := range runs {
			ctx, cancel := context.WithCancel(context.Background())
			op := specAlways()
			var err error
			waits := specDrive(t, clk, func(int, time.Duration) { cancel() }, func() {
				_, err = RetryCtx(ctx, op.Run, WithClock(clk), WithBackOff(NewConstantBackOff(time.Minute)))
			})
			if len(waits) != 1 || !errors.Is(err, context.Canceled) {
				t.Fatalf("run %d: waits %v, err %v; want one wait, cancelled", i, waits, err)
			}
		}
		// A timer left pending would move the clock to its end here; a
		// stopped one is gone. Nothing must be left to fire.
		before := clk.Now()
		if after := clk.WaitForAllTimers(); !after.Equal(before) {
			t.Errorf("timers still pending after every run returned: the clock moved by %v", after.Sub(before))
		}
	})
	t.Run("time package in a bubble", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			for i := range runs {
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() {
					done <- RetryErrorCtx(ctx, func() error { return errors.New("down") },
						WithBackOff(NewConstantBackOff(time.Minute)))
				}()
				synctest.Wait() // the driver is blocked in its wait
				cancel()
				if err := <-done; !errors.Is(err, context.Canceled) {
					t.Fatalf("run %d: %v, want cancelled", i, err)
				}
			}
		})
	})
}
