package budget_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	"github.com/herdsafe/backoff/policy"
)

// waiting returns a retry stage of at most 5 attempts, two seconds apart,
// on clk.
func waiting(clk *spectest.Clock) policy.Stage {
	return policy.Retry(backoff.WithClock(clk), backoff.WithMaxTries(5),
		backoff.WithBackOff(backoff.NewConstantBackOff(2*time.Second)))
}

// doAsync runs a call that always fails with errDown through p, on a
// goroutine of its own, and returns the channel of its error.
func doAsync(p *policy.Policy) <-chan error {
	done := make(chan error, 1)
	go func() { done <- p.DoErr(context.Background(), func(context.Context) error { return errDown }) }()
	return done
}

// A spent token bucket inside a retry stage refuses the retry when the
// attempt before it fails, not after the wait: the call ends at once, its
// clock never waited on, with the refusal as its Cause and the attempt's
// error as its LastErr.
func TestSpentBudgetRefusesBeforeTheWait(t *testing.T) {
	clk := spectest.NewClock()
	b := budget.NewTokenBucket(budget.WithMaxTokens(2)) // one failure leaves 1 token: no retry
	done := doAsync(policy.New(waiting(clk), policy.Guard(b)))
	var err error
	select {
	case err = <-done:
	case d := <-clk.Waits:
		t.Fatalf("the call waited %v for a retry its spent budget refuses", d)
	case <-time.After(spectest.Guard):
		t.Fatal("the call did not return")
	}
	if re := checkRefused(t, err); re.Attempts != 1 {
		t.Errorf("%d attempts, want 1", re.Attempts)
	}
	if s := b.Stats(); s.Refused != 1 || s.Allowed != 0 {
		t.Errorf("Stats = %+v, want 1 refused, none allowed", s)
	}
}

// A ratio budget is asked after the wait: its window slides with time, and
// the wait may free the retry it has no room for when the attempt fails.
func TestRatioBudgetIsAskedAfterTheWait(t *testing.T) {
	clk := spectest.NewClock()
	b := budget.NewRatio(budget.WithClock(clk), budget.WithMinRetriesPerSecond(0), budget.WithRetryRatio(0.5))
	done := doAsync(policy.New(waiting(clk), policy.Guard(b)))
	select {
	case d := <-clk.Waits:
		clk.Add(d)
	case err := <-done:
		t.Fatalf("the ratio budget ended the call (%v) before the wait", err)
	case <-time.After(spectest.Guard):
		t.Fatal("no wait was started")
	}
	select {
	case err := <-done:
		if re := checkRefused(t, err); re.Attempts != 1 {
			t.Errorf("%d attempts, want 1", re.Attempts)
		}
	case <-time.After(spectest.Guard):
		t.Fatal("the call did not return")
	}
}

// checkRefused checks the error of a call whose retry a budget refused:
// Cause a refusal of ErrBudgetExhausted, LastErr errDown.
func checkRefused(t *testing.T, err error) *backoff.Error {
	t.Helper()
	var re *backoff.Error
	if !errors.As(err, &re) {
		t.Fatalf("error %v, want a *backoff.Error", err)
	}
	if !errors.Is(re.Cause, budget.ErrBudgetExhausted) || !errors.Is(re.Cause, backoff.ErrRefused) || re.LastErr != errDown {
		t.Fatalf("Cause %v, LastErr %v; want a refusal of ErrBudgetExhausted, and errDown", re.Cause, re.LastErr)
	}
	return re
}

// A budget with room leaves the waits alone: each retry waits its turn,
// and the budget is asked after the wait, as before; once it runs out
// mid-call, the retry it refuses ends the call without a wait.
func TestBudgetWithRoomWaits(t *testing.T) {
	clk := spectest.NewClock()
	b := budget.NewTokenBucket(budget.WithMaxTokens(6)) // failures leave 5, 4, 3: the third refuses
	done := doAsync(policy.New(waiting(clk), policy.Guard(b)))
	for i := range 2 {
		select {
		case d := <-clk.Waits:
			if d != 2*time.Second {
				t.Fatalf("wait %d is %v, want 2s", i+1, d)
			}
			clk.Add(d)
		case err := <-done:
			t.Fatalf("the call ended (%v) before its retry %d", err, i+1)
		case <-time.After(spectest.Guard):
			t.Fatal("no wait was started")
		}
	}
	select {
	case err := <-done:
		if re := checkRefused(t, err); re.Attempts != 3 {
			t.Errorf("%d attempts, want 3", re.Attempts)
		}
	case d := <-clk.Waits:
		t.Fatalf("the call waited %v for a retry its spent budget refuses", d)
	case <-time.After(spectest.Guard):
		t.Fatal("the call did not return")
	}
}
