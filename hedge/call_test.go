package hedge

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/policy"
)

const delay = 50 * time.Millisecond

// A primary that answers before the delay wins alone: no hedge starts,
// and the timer is stopped.
func TestPrimaryAnswersFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk, s, done := scripted()
		synctest.Wait()
		s.wantStarted(t, 1)
		s.answer(1, "a1", nil)
		wantWon(t, done, "a1")
		now := clk.Now()
		if clk.WaitForAllTimers(); !clk.Now().Equal(now) {
			t.Error("the hedge timer was left running")
		}
		s.wantStarted(t, 1)
	})
}

// A hedge starts when the delay passes on the Hedger's clock, not before;
// the first success wins, the others are cancelled with ErrCanceled, and
// the winner's context is left alive.
func TestHedgeAfterDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk, s, done := scripted()
		synctest.Wait()
		clk.Add(delay - time.Nanosecond)
		synctest.Wait()
		s.wantStarted(t, 1)
		clk.Add(time.Nanosecond)
		synctest.Wait()
		s.wantStarted(t, 2)
		s.answer(2, "a2", nil)
		wantWon(t, done, "a2")
		synctest.Wait()
		s.wantCanceled(t, 1, "the loser's context")
		if err := s.ctx(2).Err(); err != nil {
			t.Errorf("the winner's context is done (%v), want it alive after Do returns", err)
		}
		s.wantNoMore(t, clk, 2)
	})
}

// WithMaxAttempts bounds the attempts; when all fail the call fails with
// ErrExhausted, the error of the attempt that failed last, the number of
// attempts, and the time spent on the Hedger's clock.
func TestAllAttemptsFail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk, s, done := scripted()
		pass(clk, 4)
		s.wantStarted(t, 3)
		err1, err2, err3 := errors.New("e1"), errors.New("e2"), errors.New("e3")
		s.answer(2, "", err2)
		s.answer(3, "", err3)
		synctest.Wait()
		pending(t, done)
		s.answer(1, "", err1)
		o := <-done
		e := asError(t, o.err)
		if e.Cause != backoff.ErrExhausted || e.LastErr != err1 || e.Attempts != 3 || e.Elapsed != 4*delay || o.v != "" {
			t.Errorf("err = %+v (elapsed %v), want Cause ErrExhausted, LastErr e1 (the last to fail), 3 attempts, 200ms", e, e.Elapsed)
		}
	})
}

// Without a classifier a failure starts nothing: the next attempt waits
// for the delay, and the others go on.
func TestFailureWaitsForDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk, s, done := scripted()
		synctest.Wait()
		s.answer(1, "", errTransient)
		synctest.Wait()
		s.wantStarted(t, 1)
		pending(t, done)
		clk.Add(delay)
		synctest.Wait()
		s.wantStarted(t, 2)
		s.answer(2, "a2", nil)
		wantWon(t, done, "a2")
	})
}

// With a classifier, an error it accepts starts the next attempt at once,
// and the delay is counted again from there; one it rejects ends the call
// at once with ErrPermanent, cancelling the attempts in flight.
func TestRetryable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewMock()
		s := newScript()
		h := New(WithDelay(delay), WithMaxAttempts(4), WithClock(clk), WithRetryable(func(err error) bool { return errors.Is(err, errTransient) }))
		done := goDo(context.Background(), h, nil, s.op())
		synctest.Wait()
		clk.Add(delay / 2)
		s.answer(1, "", errTransient)
		synctest.Wait()
		s.wantStarted(t, 2)
		clk.Add(delay - time.Nanosecond)
		synctest.Wait()
		s.wantStarted(t, 2)
		clk.Add(time.Nanosecond)
		synctest.Wait()
		s.wantStarted(t, 3)
		s.answer(3, "", errFatal)
		o := <-done
		if e := asError(t, o.err); e.Cause != backoff.ErrPermanent || e.LastErr != errFatal || e.Attempts != 3 {
			t.Errorf("err = %+v, want Cause ErrPermanent, LastErr errFatal, 3 attempts", e)
		}
		synctest.Wait()
		s.wantCanceled(t, 2, "the attempt in flight")
		s.wantNoMore(t, clk, 3)
	})
}

// A zero delay starts every attempt at once.
func TestZeroDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScript()
		done := goDo(context.Background(), New(WithDelay(0), WithMaxAttempts(3)), nil, s.op())
		synctest.Wait()
		s.wantStarted(t, 3)
		s.answer(2, "a2", nil)
		wantWon(t, done, "a2")
	})
}

// The caller's context ends the call at once with its cause; the attempts
// are cancelled. A context done before the call starts nothing.
func TestCallerContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScript()
		s.ignoreCtx = true // Do must not wait for the attempts
		cause := errors.New("caller left")
		ctx, cancel := context.WithCancelCause(context.Background())
		clk := clock.NewMock()
		done := goDo(ctx, New(WithDelay(delay), WithMaxAttempts(3), WithClock(clk)), nil, s.op())
		synctest.Wait()
		clk.Add(delay)
		synctest.Wait()
		s.wantStarted(t, 2)
		s.answer(1, "", errTransient)
		synctest.Wait()
		cancel(cause)
		o := <-done
		if e := asError(t, o.err); e.Cause != cause || e.LastErr != errTransient || e.Attempts != 2 {
			t.Errorf("err = %+v, want Cause the context's cause, LastErr transient, 2 attempts", e)
		}
		if !errors.Is(context.Cause(s.ctx(2)), cause) {
			t.Errorf("the attempt in flight: cause %v, want the caller's", context.Cause(s.ctx(2)))
		}
		s.answer(2, "", context.Canceled)

		_, err := Do(ctx, New(WithDelay(delay)), nil, Idempotent(func(context.Context) (string, error) {
			t.Error("an attempt started under a done context")
			return "", nil
		}))
		if e := asError(t, err); e.Cause != cause || e.Attempts != 0 || e.LastErr != nil {
			t.Errorf("done before the call: %+v, want Cause the context's cause and no attempt", e)
		}
	})
}

// An attempt that succeeds after another won has its result discarded,
// exactly once; the winner's is not; a loser that failed is not.
func TestDiscardLosers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScript()
		s.ignoreCtx = true
		var discarded []string
		h := New(WithDelay(0), WithMaxAttempts(3), WithDiscard(func(v string) { discarded = append(discarded, v) }))
		done := goDo(context.Background(), h, nil, s.op())
		synctest.Wait()
		s.answer(2, "a2", nil)
		wantWon(t, done, "a2")
		s.answer(1, "a1", nil)
		s.answer(3, "", errTransient)
		synctest.Wait()
		if len(discarded) != 1 || discarded[0] != "a1" {
			t.Errorf("discarded %q, want [a1]", discarded)
		}
	})
}

// A Goexit in an attempt is reported to the caller as a panic, as a panic
// would be.
func TestGoexit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		done := goDo(context.Background(), New(WithDelay(delay), WithMaxAttempts(1)), nil, Idempotent(func(context.Context) (string, error) {
			runtime.Goexit()
			return "", nil
		}))
		o := <-done
		pe, ok := o.panic.(*policy.PanicError)
		if !ok || pe.Value != errGoexit {
			t.Errorf("panic %v, want a *policy.PanicError of errGoexit", o.panic)
		}
	})
}
