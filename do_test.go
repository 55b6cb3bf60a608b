package backoff

import (
	"context"
	"errors"
	"slices"
	"testing"
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
			v, err = call(context.Background(), op.Run, WithClock(clk), WithMaxTries(4),
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
