package backoff

import (
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"
)

// A timeout stage inside the retry stage bounds each attempt, and an
// attempt that runs out of time is retried; outside, it bounds the whole
// loop, which then stops with its cause.
func TestTimeoutStage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := func(ctx context.Context) error {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Hour):
				return nil
			}
		}
		start := time.Now()
		calls := 0
		err := NewPolicy(WithRetry(WithBackOff(&ZeroBackOff{})), WithTimeout(time.Second)).Execute(context.Background(),
			func(ctx context.Context) error { calls++; return slow(ctx) })
		specCheckStop(t, err, ErrExhausted, context.DeadlineExceeded)
		if calls != 3 || time.Since(start) != 3*time.Second {
			t.Errorf("inside: %d calls in %v, want 3 in 3s", calls, time.Since(start))
		}
		start, calls = time.Now(), 0
		err = NewPolicy(WithTimeout(2500*time.Millisecond), WithRetry(WithBackOff(NewConstantBackOff(time.Second)), WithMaxTries(0))).Execute(context.Background(),
			func(ctx context.Context) error { calls++; return io.EOF })
		if re := specAsError(t, err); !errors.Is(re.Cause, context.DeadlineExceeded) || calls != 3 || time.Since(start) != 2*time.Second {
			t.Errorf("outside: %v after %d calls in %v; want DeadlineExceeded after 3 calls in 2s (the third wait would overrun)", err, calls, time.Since(start))
		}
		// A function that ignores its context: the stage returns when it
		// does, with what it returned.
		v, err := Execute(context.Background(), NewPolicy(WithTimeout(time.Millisecond)), func(context.Context) (int, error) {
			time.Sleep(time.Second)
			return 4, nil
		})
		if v != 4 || err != nil {
			t.Errorf("a function that ignores its context: (%d, %v), want (4, nil)", v, err)
		}
	})
	// On a mock clock: the function itself moves the clock past the
	// deadline, which ends its context.
	clk := newSpecClock()
	err := NewPolicy(WithTimeoutClock(clk, time.Minute)).Execute(context.Background(), func(ctx context.Context) error {
		clk.Add(time.Minute)
		<-ctx.Done()
		return ctx.Err()
	})
	specCheckStop(t, err, ErrExhausted, context.DeadlineExceeded)
}

// WithRecover turns a panic inside it into a *PanicError that the stages
// around it handle like an error.
func TestRecoverStage(t *testing.T) {
	calls := 0
	v, err := Execute(context.Background(), NewPolicy(WithRetry(WithBackOff(&ZeroBackOff{})), WithRecover()), func(context.Context) (int, error) {
		if calls++; calls < 3 {
			panic("boom")
		}
		return calls, nil
	})
	if v != 3 || err != nil {
		t.Errorf("(%d, %v), want (3, nil): the two panics retried", v, err)
	}
	err = NewPolicy(WithRecover()).Execute(context.Background(), func(context.Context) error { panic(io.EOF) })
	var pe *PanicError
	if !errors.As(err, &pe) || !errors.Is(err, io.EOF) || len(pe.Stack) == 0 {
		t.Errorf("err %v, want a *PanicError wrapping io.EOF with a stack", err)
	}
}
