package backoff

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
