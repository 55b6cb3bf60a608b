package backoff

import (
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"
)

// The retry stage's defaults: 3 attempts, full jitter (each wait within
// [0, nominal] of 100ms doubling), and a 30 s budget counted from the
// first failure, which a longer Retry-After does not get past.
func TestRetryStageDefaults(t *testing.T) {
	clk := newSpecClock()
	p := NewPolicy(WithRetry(WithClock(clk)))
	op := specAlways()
	var err error
	waits := specDrive(t, clk, nil, func() {
		_, err = Execute(context.Background(), p, func(context.Context) (int, error) { return op.run() })
	})
	specCheckStop(t, err, ErrExhausted, attemptErr(3))
	if op.count() != DefaultRetryMaxTries || len(waits) > 2 {
		t.Fatalf("%d attempts after waits %v, want %d attempts", op.count(), waits, DefaultRetryMaxTries)
	}
	for i, d := range waits {
		if nominal := 100 * time.Millisecond << i; d < 0 || d > nominal {
			t.Errorf("wait %d is %v, want it in [0, %v]", i+1, d, nominal)
		}
	}
	calls := 0
	waits = specDrive(t, clk, nil, func() {
		err = NewPolicy(WithRetry(WithClock(clk))).Execute(context.Background(), func(context.Context) error {
			calls++
			return RetryAfter(DefaultMaxRetryTime+time.Second, io.EOF)
		})
	})
	specCheckStop(t, err, ErrMaxElapsedTime, io.EOF)
	if calls != 1 || len(waits) != 0 {
		t.Errorf("%d calls after waits %v, want one call and no wait", calls, waits)
	}
	// The shortcuts become stages just inside the retry stage.
	err = NewPolicy(WithRetry(WithBackOff(&ZeroBackOff{}), WithAttemptTimeout(time.Nanosecond), WithPanicRecovery())).Execute(context.Background(),
		func(ctx context.Context) error {
			<-ctx.Done()
			panic(ctx.Err())
		})
	var pe *PanicError
	if !errors.As(err, &pe) || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrExhausted) {
		t.Errorf("attempts that time out and panic: %v, want a *PanicError of DeadlineExceeded, exhausted", err)
	}
}

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
			<-time.After(time.Second) // virtual time: ignores its context
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

// WithAttemptTimeout on a mock clock: the attempt's deadline is on the
// clock, so advancing it times the attempt out, and the attempt is retried.
func TestAttemptTimeoutOnTheMockClock(t *testing.T) {
	clk := newSpecClock()
	done := make(chan error, 1)
	attempts := 0
	go func() {
		_, err := Do(context.Background(), func(ctx context.Context) (int, error) {
			attempts++
			if attempts == 1 {
				<-ctx.Done()
				return 0, ctx.Err()
			}
			return 1, nil
		}, WithClock(clk), WithAttemptTimeout(time.Minute), WithBackOff(&ZeroBackOff{}))
		done <- err
	}()
	// The mock's contexts start no Timer to report, so advance the clock a
	// minute at a time until the run ends; a real-time deadline would never
	// fire here.
	for range 1000 {
		select {
		case err := <-done:
			if err != nil || attempts != 2 {
				t.Fatalf("got %v after %d attempts, want success after 2", err, attempts)
			}
			return
		default:
			clk.Add(time.Minute)
		}
	}
	t.Fatal("the attempt did not time out on the mock clock")
}
