package backoff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// "fn receives the attempt's context": a context derived from the caller's,
// carrying its values and its cancellation.
func TestDoPassesTheAttemptsContext(t *testing.T) {
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), specKey{}, "caller"))
	defer cancel()
	var ctxs []context.Context
	v, err := Do(parent, func(ctx context.Context) (string, error) {
		ctxs = append(ctxs, ctx)
		if len(ctxs) < 2 {
			return "", errors.New("down")
		}
		return "up", nil
	}, WithBackOff(&ZeroBackOff{}))
	if err != nil || v != "up" {
		t.Fatalf("got (%q, %v), want success", v, err)
	}
	for i, ctx := range ctxs {
		if got := ctx.Value(specKey{}); got != "caller" {
			t.Errorf("attempt %d: the context lost the caller's value (%v)", i+1, got)
		}
	}
	cancel()
	for i, ctx := range ctxs {
		select {
		case <-ctx.Done():
		default:
			t.Errorf("attempt %d: the context is not cancelled with the caller's", i+1)
		}
	}
}

// "fn is never started after ctx is done": cancelling during a wait ends
// the run with no further attempt, and the cause is ctx's.
func TestDoNeverStartsFnAfterTheContextIsDone(t *testing.T) {
	clk := newSpecClock()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	errStop := errors.New("shutting down")
	var calls int
	var err error
	specDrive(t, clk, func(int, time.Duration) { cancel(errStop) }, func() {
		_, err = Do(ctx, func(context.Context) (int, error) {
			calls++
			return calls, attemptErr(calls)
		}, WithClock(clk))
	})
	if calls != 1 {
		t.Errorf("fn ran %d times, want 1", calls)
	}
	specCheckStop(t, err, errStop, attemptErr(1))
}

// Do takes the same options and gives the same *Error as RetryCtx: the same
// run through both ends alike.
func TestDoMatchesRetryCtx(t *testing.T) {
	type outcome struct {
		v        int
		cause    error
		lastMsg  string
		attempts int
		waits    []time.Duration
	}
	run := func(call func(ctx context.Context, op func() (int, error), opts ...RetryOption) (int, error)) outcome {
		clk := newSpecClock()
		op := specAlways()
		var v int
		var err error
		waits := specDrive(t, clk, nil, func() {
			v, err = call(context.Background(), op.run, WithClock(clk), WithMaxTries(4),
				WithBackOff(specExp(time.Second, time.Minute)))
		})
		re := specAsError(t, err)
		return outcome{v, re.Cause, re.LastErr.Error(), re.Attempts, waits}
	}
	got, want := run(specEntries[4].run), run(specEntries[1].run)
	if got.v != want.v || got.cause != want.cause || got.lastMsg != want.lastMsg ||
		got.attempts != want.attempts || !slices.Equal(got.waits, want.waits) {
		t.Errorf("Do gave %+v, RetryCtx %+v", got, want)
	}
	if want.attempts != 4 || want.cause != ErrExhausted {
		t.Errorf("RetryCtx gave %+v, want ErrExhausted after 4 attempts", want)
	}
}

// "WithAttemptTimeout(d) gives each attempt its own deadline (an attempt
// that times out is an ordinary, retryable failure)." Run on the virtual
// time of a synctest bubble.
func TestDoAttemptTimeout(t *testing.T) {
	t.Run("a timed-out attempt is retried", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			var deadlines []time.Duration
			var n specNotify
			v, err := Do(context.Background(), func(ctx context.Context) (string, error) {
				d, ok := ctx.Deadline()
				if !ok {
					return "", errors.New("the attempt has no deadline")
				}
				deadlines = append(deadlines, d.Sub(start))
				if len(deadlines) == 1 {
					<-ctx.Done() // a hung attempt
					return "", ctx.Err()
				}
				return "done", nil
			}, WithAttemptTimeout(5*time.Second), WithBackOff(NewConstantBackOff(time.Second)), WithNotify(n.notify))
			if err != nil || v != "done" {
				t.Fatalf("got (%q, %v), want success at the second attempt", v, err)
			}
			if want := []time.Duration{5 * time.Second, 11 * time.Second}; !slices.Equal(deadlines, want) {
				t.Errorf("attempt deadlines at %v, want %v: each attempt's own", deadlines, want)
			}
			if len(n.errs) != 1 || !errors.Is(n.errs[0], context.DeadlineExceeded) {
				t.Errorf("Notify got %v, want the attempt's DeadlineExceeded", n.errs)
			}
			if got := time.Since(start); got != 6*time.Second {
				t.Errorf("took %v, want 6s: 5s attempt, 1s wait", got)
			}
		})
	})
	t.Run("every attempt times out", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var calls int
			_, err := Do(context.Background(), func(ctx context.Context) (int, error) {
				calls++
				<-ctx.Done()
				return calls, ctx.Err()
			}, WithAttemptTimeout(time.Second), WithBackOff(&ZeroBackOff{}), WithMaxTries(3))
			re := specCheckStop(t, err, ErrExhausted, context.DeadlineExceeded)
			if calls != 3 || re.Attempts != 3 {
				t.Errorf("ran %d times, Attempts %d; want 3", calls, re.Attempts)
			}
		})
	})
	t.Run("the caller's deadline still decides", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
			defer cancel()
			var calls int
			_, err := Do(ctx, func(ctx context.Context) (int, error) {
				calls++
				<-ctx.Done()
				return calls, fmt.Errorf("attempt %d: %w", calls, ctx.Err())
			}, WithAttemptTimeout(time.Second), WithBackOff(&ZeroBackOff{}))
			re := specAsError(t, err)
			if re.Cause != context.DeadlineExceeded || calls != 3 {
				t.Errorf("Cause %v after %d attempts, want the caller's deadline after 3", re.Cause, calls)
			}
			if re.LastErr == nil || re.LastErr.Error() != "attempt 3: context deadline exceeded" {
				t.Errorf("LastErr = %v, want the third attempt's error", re.LastErr)
			}
		})
	})
}

// "WithPanicRecovery(): a panic in the operation becomes an
// *PanicError{Value any, Stack []byte} error, subject to the classifier
// like any other."
func TestPanicRecoveryTurnsAPanicIntoAnError(t *testing.T) {
	for _, e := range specEntries {
		t.Run("retried/"+e.name, func(t *testing.T) {
			var n specNotify
			op := specScript(func(n int) (int, error) {
				if n == 1 {
					panic("boom")
				}
				return 100, nil
			})
			v, err := e.run(context.Background(), op.run, WithPanicRecovery(), WithBackOff(&ZeroBackOff{}), WithNotify(n.notify))
			if err != nil || (e.hasResult && v != 100) || op.count() != 2 {
				t.Fatalf("got (%d, %v) after %d attempts, want success after 2", v, err, op.count())
			}
			if len(n.errs) != 1 {
				t.Fatalf("Notify got %v, want the panic", n.errs)
			}
			var pe *PanicError
			if !errors.As(n.errs[0], &pe) {
				t.Fatalf("Notify got %T, want *PanicError", n.errs[0])
			}
			if pe.Value != "boom" {
				t.Errorf("Value = %v, want boom", pe.Value)
			}
			if !bytes.Contains(pe.Stack, []byte("goroutine")) || !bytes.Contains(pe.Stack, []byte("TestPanicRecoveryTurnsAPanicIntoAnError")) {
				t.Errorf("Stack = %s, want the stack trace of the panicking operation", pe.Stack)
			}
		})
		t.Run("rejected by the classifier/"+e.name, func(t *testing.T) {
			value := errors.New("nil map write")
			op := specScript(func(int) (int, error) { panic(value) })
			notPanic := WithRetryable(func(err error) bool { return !errors.As(err, new(*PanicError)) })
			_, err := e.run(context.Background(), op.run, WithPanicRecovery(), notPanic, WithBackOff(&ZeroBackOff{}), WithMaxTries(3))
			re := specAsError(t, err)
			var pe *PanicError
			if re.Cause != ErrPermanent || !errors.As(re.LastErr, &pe) || pe.Value != value {
				t.Errorf("Cause %v, LastErr %v; want ErrPermanent with the *PanicError", re.Cause, re.LastErr)
			}
			if op.count() != 1 {
				t.Errorf("ran %d times, want 1", op.count())
			}
		})
		t.Run("until MaxTries/"+e.name, func(t *testing.T) {
			op := specScript(func(int) (int, error) { panic(42) })
			_, err := e.run(context.Background(), op.run, WithPanicRecovery(), WithMaxTries(3), WithBackOff(&ZeroBackOff{}))
			re := specAsError(t, err)
			var pe *PanicError
			if re.Cause != ErrExhausted || !errors.As(err, &pe) || pe.Value != 42 || op.count() != 3 {
				t.Errorf("Cause %v, LastErr %v after %d attempts; want ErrExhausted, a *PanicError(42), 3", re.Cause, re.LastErr, op.count())
			}
		})
	}
}

// "Without the option a panic propagates unchanged (after the driver has
// released its timer)."
func TestPanicPropagatesWithoutRecovery(t *testing.T) {
	value := &specTempError{"panic value"}
	for _, e := range specEntries {
		t.Run(e.name, func(t *testing.T) {
			op := specScript(func(n int) (int, error) {
				if n == 1 {
					return n, attemptErr(n)
				}
				panic(value)
			})
			got := func() (r any) {
				defer func() { r = recover() }()
				_, _ = e.run(context.Background(), op.run, WithBackOff(&ZeroBackOff{}))
				return nil
			}()
			if got != value {
				t.Errorf("recovered %v (%T), want the operation's own panic value", got, got)
			}
			if op.count() != 2 {
				t.Errorf("ran %d times, want 2", op.count())
			}
		})
	}
	t.Run("the attempt's context is released", func(t *testing.T) {
		var attemptCtx context.Context
		func() {
			defer func() { _ = recover() }()
			_, _ = Do(context.Background(), func(ctx context.Context) (int, error) {
				attemptCtx = ctx
				panic("boom")
			}, WithAttemptTimeout(time.Hour))
		}()
		if attemptCtx == nil || attemptCtx.Err() == nil {
			t.Errorf("the attempt's context (and its timer) is still live after the panic")
		}
	})
}

// "WithTestingBypass(ctx): every wait under that context is skipped, so an
// application's own tests can exercise retry paths in microseconds without
// global state (safe with t.Parallel)."
func TestTestingBypassSkipsEveryWait(t *testing.T) {
	t.Run("no timer, no time", func(t *testing.T) {
		for _, e := range specCtxEntries {
			clk := newSpecClock()
			start := clk.Now()
			op := specAlways()
			ctx := WithTestingBypass(context.Background())
			var err error
			waits := specDrive(t, clk, nil, func() {
				_, err = e.run(ctx, op.run, WithClock(clk), WithMaxTries(6), WithBackOff(NewConstantBackOff(time.Minute)))
			})
			specCheckStop(t, err, ErrExhausted, attemptErr(6))
			if len(waits) != 0 || !clk.Now().Equal(start.Add(specSum(waits))) {
				t.Errorf("%s: waits %v started under the bypass", e.name, waits)
			}
		}
	})
	t.Run("no real time on the default clock", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			op := specFailThenSucceed(8)
			ctx := WithTestingBypass(context.Background())
			if _, err := RetryCtx(ctx, op.run, WithMaxElapsedTime(0)); err != nil {
				t.Fatal(err)
			}
			if got := time.Since(start); got != 0 {
				t.Errorf("8 retries with the default policy took %v, want none", got)
			}
		})
	})
	t.Run("a derived context keeps the bypass", func(t *testing.T) {
		clk := newSpecClock()
		ctx, cancel := context.WithCancel(WithTestingBypass(context.Background()))
		defer cancel()
		op := specFailThenSucceed(3)
		var err error
		waits := specDrive(t, clk, nil, func() { _, err = RetryCtx(context.WithValue(ctx, specKey{}, 1), op.run, WithClock(clk)) })
		if err != nil {
			t.Fatal(err)
		}
		if len(waits) != 0 {
			t.Errorf("waits %v started under a context derived from the bypass", waits)
		}
	})
	t.Run("parallel", func(t *testing.T) {
		// Bypassed runs and one that is not run in parallel: the bypass of
		// one context does not leak into the other.
		var mu sync.Mutex
		waited := map[string]int{}
		for i := range 8 {
			name := fmt.Sprintf("bypassed %d", i)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				clk := newSpecClock()
				op := specFailThenSucceed(5)
				var err error
				waits := specDrive(t, clk, nil, func() { _, err = RetryCtx(WithTestingBypass(context.Background()), op.run, WithClock(clk)) })
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				waited[name] = len(waits)
				mu.Unlock()
			})
		}
		t.Run("not bypassed", func(t *testing.T) {
			t.Parallel()
			clk := newSpecClock()
			op := specFailThenSucceed(2)
			var err error
			waits := specDrive(t, clk, nil, func() { _, err = RetryCtx(context.Background(), op.run, WithClock(clk)) })
			if err != nil || len(waits) != 2 {
				t.Errorf("got %v with waits %v, want success after 2 real waits", err, waits)
			}
		})
		t.Cleanup(func() {
			for name, n := range waited {
				if n != 0 {
					t.Errorf("%s: %d waits started", name, n)
				}
			}
		})
	})
}

// WithAttemptTimeout needs a function that receives the attempt's context:
// the entry points that pass none report it instead of ignoring it.
func TestAttemptTimeoutOnlyForDo(t *testing.T) {
	calls := 0
	op := func() (int, error) { calls++; return 1, nil }
	_, errRetry := RetryCtx(context.Background(), op, WithAttemptTimeout(time.Second))
	errRetryError := RetryErrorCtx(context.Background(), func() error { calls++; return nil }, WithAttemptTimeout(time.Second))
	for _, err := range []error{errRetry, errRetryError} {
		if !errors.Is(err, ErrInvalidConfiguration) || !strings.Contains(err.Error(), "WithAttemptTimeout") {
			t.Errorf("got %v, want an ErrInvalidConfiguration naming WithAttemptTimeout", err)
		}
	}
	if calls != 0 {
		t.Errorf("the operation ran %d times, want none", calls)
	}
	if _, err := Do(context.Background(), func(context.Context) (int, error) { return 1, nil }, WithAttemptTimeout(time.Second)); err != nil {
		t.Errorf("Do with WithAttemptTimeout: %v", err)
	}
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
