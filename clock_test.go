package backoff

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// WithMaxRetryTime counts from the end of the first failed attempt: a slow
// first attempt that fails still gets its retries (pitfall 2), where
// WithMaxElapsedTime, counted from the call, gives it none.
func TestMaxRetryTimeCountsFromTheFirstFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slowFirst := func() *specOp {
			return specScript(func(n int) (int, error) {
				if n == 1 {
					time.Sleep(10 * time.Second) // virtual time: the first attempt is slow
				}
				return n, attemptErr(n)
			})
		}
		op := slowFirst()
		_, err := Retry(op.run, WithBackOff(NewConstantBackOff(time.Second)), WithMaxElapsedTime(5*time.Second))
		specCheckStop(t, err, ErrMaxElapsedTime, attemptErr(1))
		if op.count() != 1 {
			t.Errorf("WithMaxElapsedTime: %d attempts, want 1", op.count())
		}
		op = slowFirst()
		_, err = Retry(op.run, WithBackOff(NewConstantBackOff(time.Second)), WithMaxElapsedTime(0), WithMaxRetryTime(2500*time.Millisecond))
		re := specCheckStop(t, err, ErrMaxElapsedTime, attemptErr(3))
		// 10s attempt 1, then 1s waits: attempts 2 and 3 start 1s and 2s
		// after the first failure; a third wait would end at 3s > 2.5s.
		if op.count() != 3 || re.Elapsed != 2*time.Second {
			t.Errorf("WithMaxRetryTime: %d attempts, Elapsed %v; want 3 attempts, and 2s since the first failure", op.count(), re.Elapsed)
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
	if _, err := Execute(context.Background(), NewPolicy(WithRetry(WithClock(clk))), func(context.Context) (int, error) { return 1, nil }); err != nil {
		t.Fatal(err)
	}
	if clk.reads != 0 {
		t.Errorf("%d clock readings on success, want 0", clk.reads)
	}
	// With the default 15-minute budget, counted from the call, one.
	if _, err := Retry(succeed, WithClock(clk)); err != nil || clk.reads != 1 {
		t.Errorf("seed 003's default budget: %d readings, want 1 (%v)", clk.reads, err)
	}
}

type countingClock struct {
	*specClock
	reads int
}

func (c *countingClock) Since(t time.Time) time.Duration { c.reads++; return c.specClock.Since(t) }
func (c *countingClock) Now() time.Time                  { c.reads++; return c.specClock.Now() }
