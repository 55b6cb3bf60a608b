package hedge

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"testing/synctest"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
)

// failsafe-go#141: a budget that refuses every hedge
// suppresses the hedges only; the primary is never cancelled, and wins.
func TestBudgetRefusalKeepsPrimary(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &spyGuard{admit: refuseAll}
		clk, s, done := scripted(WithBudget(g))
		pass(clk, 3)
		s.wantStarted(t, 1)
		if err := s.ctx(1).Err(); err != nil {
			t.Fatalf("the primary's context is done (%v) after the budget refused the hedges", err)
		}
		pending(t, done)
		s.answer(1, "a1", nil)
		wantWon(t, done, "a1")
		calls, outcomes, _ := g.snapshot()
		if want := []guard.Call{{Attempt: 2}, {Attempt: 3}}; !reflect.DeepEqual(calls, want) {
			t.Errorf("the budget was asked %v, want %v", calls, want)
		}
		if len(outcomes) != 0 {
			t.Errorf("Record was called %d times for attempts the budget refused", len(outcomes))
		}
	})
}

// The budget is asked for the extra attempts only, and told once how each
// it admitted ended: a loser cancelled after another won is Abandoned.
func TestBudgetRecords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &spyGuard{admit: admitAll}
		clk, s, done := scripted(WithBudget(g))
		pass(clk, 2)
		s.wantStarted(t, 3)
		s.answer(3, "a3", nil)
		wantWon(t, done, "a3")
		synctest.Wait()
		calls, outcomes, permits := g.snapshot()
		if want := []guard.Call{{Attempt: 2}, {Attempt: 3}}; !reflect.DeepEqual(calls, want) {
			t.Fatalf("the budget was asked %v, want %v", calls, want)
		}
		if len(outcomes) != 2 {
			t.Fatalf("%d outcomes recorded, want 2: %+v", len(outcomes), outcomes)
		}
		// Each attempt records on its own goroutine, so in either order:
		// the winner's success with its permit, the loser abandoned with
		// its own.
		byToken := map[uint64]guard.Outcome{}
		for i, p := range permits {
			byToken[p.Token] = outcomes[i]
		}
		if o, ok := byToken[2]; !ok || o != (guard.Outcome{}) {
			t.Errorf("permit 2 (the winner) recorded %+v (%v), want a success", o, ok)
		}
		if o, ok := byToken[1]; !ok || !o.Abandoned || !errors.Is(o.Err, context.Canceled) {
			t.Errorf("permit 1 (the loser) recorded %+v (%v), want it abandoned", o, ok)
		}
	})
}

// A call whose attempts all failed after the budget suppressed some fails
// with the budget's refusal as its Cause, and the last real error.
func TestBudgetRefusalIsCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &spyGuard{admit: func(c guard.Call) bool { return c.Attempt == 2 }}
		clk, s, done := scripted(WithBudget(g))
		synctest.Wait()
		s.answer(1, "", errTransient)
		clk.Add(delay)
		synctest.Wait()
		s.wantStarted(t, 2)
		clk.Add(delay) // attempt 3 is refused
		synctest.Wait()
		pending(t, done)
		s.answer(2, "", errFatal)
		o := <-done
		if e := asError(t, o.err); !errors.Is(e.Cause, errBudget) || !errors.Is(e.Cause, backoff.ErrRefused) ||
			e.LastErr != errFatal || e.Attempts != 2 {
			t.Errorf("err = %+v, want Cause a refusal of the budget's error, LastErr the last failure, 2 attempts", e)
		}
		if !errors.Is(o.err, errBudget) {
			t.Error("errors.Is does not find the budget's refusal")
		}
	})
}

// A classifier's verdict asks the budget too: a refused immediate attempt
// waits for the delay like any other.
func TestBudgetWithRetryable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewMock()
		g := &spyGuard{admit: func(c guard.Call) bool { return c.Attempt != 2 }}
		s := newScript()
		h := New(WithDelay(delay), WithMaxAttempts(3), WithClock(clk), WithBudget(g), WithRetryable(func(error) bool { return true }))
		done := goDo(context.Background(), h, nil, s.op())
		synctest.Wait()
		s.answer(1, "", errTransient) // attempt 2 is asked for at once, and refused
		synctest.Wait()
		s.wantStarted(t, 1)
		clk.Add(delay)
		synctest.Wait()
		s.wantStarted(t, 2)
		s.answer(2, "a3", nil)
		wantWon(t, done, "a3")
		if calls, _, _ := g.snapshot(); !reflect.DeepEqual(calls, []guard.Call{{Attempt: 2}, {Attempt: 3}}) {
			t.Errorf("the budget was asked %v", calls)
		}
	})
}
