package hedge

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/policy"
)

// A panic in an attempt the call waits for is raised again on the
// caller's goroutine, as a *policy.PanicError with the attempt's stack,
// after the other attempts are cancelled.
func TestPanicReachesCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScript()
		op := Idempotent(func(ctx context.Context) (string, error) {
			if s.started.CompareAndSwap(0, 1) {
				panic("boom")
			}
			return s.fn(ctx)
		})
		o := <-goDo(context.Background(), New(WithDelay(0), WithMaxAttempts(2)), nil, op)
		pe, ok := o.panic.(*policy.PanicError)
		if !ok || pe.Value != "boom" || len(pe.Stack) == 0 {
			t.Fatalf("panic %#v, want a *policy.PanicError of boom with a stack", o.panic)
		}
		synctest.Wait()
		s.wantCanceled(t, 2, "the other attempt")
	})
}

// A policy.Recover stage in the inner Policy makes a panic an attempt's
// error: the other attempts go on.
func TestPanicRecoveredByInnerPolicy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		op := Idempotent(func(ctx context.Context) (string, error) {
			panic("boom")
		})
		inner := policy.New(policy.Recover())
		v, err := Do(context.Background(), New(WithDelay(0), WithMaxAttempts(3)), inner, op)
		var pe *policy.PanicError
		if e := asError(t, err); e.Cause != backoff.ErrExhausted || !errors.As(e.LastErr, &pe) || e.Attempts != 3 || v != "" {
			t.Errorf("(%q, %+v), want ErrExhausted after 3 attempts, with a *PanicError as LastErr", v, e)
		}
	})
}

// A panic in an attempt that lost, after the call returned, has nobody to
// reach: it is dropped, and the attempt's goroutine ends.
func TestPanicAfterCallDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var calls atomic.Int32
		op := Idempotent(func(ctx context.Context) (string, error) {
			if calls.Add(1) == 1 {
				<-release // ignores its context
				panic("late")
			}
			return "a2", nil
		})
		h := New(WithDelay(0), WithMaxAttempts(2))
		if v, err := Do(context.Background(), h, nil, op); v != "a2" || err != nil {
			t.Fatalf("(%q, %v), want a2", v, err)
		}
		close(release)
		synctest.Wait() // the bubble would fail if the goroutine were stuck
	})
}

// Each hedged attempt runs the function through the inner Policy: here
// each makes two tries.
func TestInnerPolicyPerAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var tries atomic.Int32
		op := Idempotent(func(ctx context.Context) (int, error) {
			tries.Add(1)
			return 0, errTransient
		})
		inner := policy.New(policy.Retry(backoff.WithMaxTries(2), backoff.WithBackOff(&backoff.ZeroBackOff{})))
		_, err := Do(context.Background(), New(WithDelay(0), WithMaxAttempts(3)), inner, op)
		e := asError(t, err)
		var last *backoff.Error
		if e.Cause != backoff.ErrExhausted || e.Attempts != 3 || !errors.As(e.LastErr, &last) || last.Attempts != 2 || tries.Load() != 6 {
			t.Errorf("%+v after %d tries, want 3 attempts of 2 tries, LastErr the inner Policy's *Error", e, tries.Load())
		}
		if !errors.Is(err, errTransient) {
			t.Error("errors.Is does not reach the function's error")
		}
	})
}
