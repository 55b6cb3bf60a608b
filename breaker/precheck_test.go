package breaker_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	"github.com/herdsafe/backoff/policy"
)

// retryOn returns a Policy of a retry stage of at most 3 attempts, two
// seconds apart on clk, around b.
func retryOn(clk *spectest.Clock, b *breaker.Breaker) *policy.Policy {
	return policy.New(policy.Retry(backoff.WithClock(clk), backoff.WithMaxTries(3),
		backoff.WithBackOff(backoff.NewConstantBackOff(2*time.Second))), policy.Guard(b))
}

// A breaker forced open during an attempt refuses the retry before the
// wait: no wait can end a forced opening.
func TestForcedOpenRefusesBeforeTheWait(t *testing.T) {
	clk := spectest.NewClock()
	b := breaker.New(breaker.WithClock(clk))
	done := make(chan error, 1)
	go func() {
		done <- retryOn(clk, b).DoErr(context.Background(), func(context.Context) error {
			b.ForceOpen()
			return errBoom
		})
	}()
	select {
	case err := <-done:
		var oe *breaker.OpenError
		var re *backoff.Error
		if !errors.As(err, &oe) || oe.State != breaker.ForcedOpen || !errors.As(err, &re) || re.LastErr != errBoom || re.Attempts != 1 {
			t.Fatalf("error %v, want the forced-open refusal after 1 attempt, LastErr errBoom", err)
		}
	case d := <-clk.Waits:
		t.Fatalf("a breaker forced open let the call wait %v for a retry it refuses", d)
	case <-time.After(spectest.Guard):
		t.Fatal("the call did not return")
	}
	if c := b.Counts(); c.Rejections != 1 {
		t.Errorf("%d rejections counted, want 1", c.Rejections)
	}
}

// An open breaker is asked after the wait, not before: its open duration
// may end during the wait, and the retry is then its half-open probe.
func TestOpenBreakerIsAskedAfterTheWait(t *testing.T) {
	clk := spectest.NewClock()
	b := breaker.New(breaker.WithClock(clk), breaker.WithConsecutiveFailures(1), breaker.WithOpenDuration(time.Second))
	calls := 0
	done := make(chan error, 1)
	go func() {
		done <- retryOn(clk, b).DoErr(context.Background(), func(context.Context) error {
			calls++
			if calls == 1 {
				return errBoom // trips the breaker for 1 s
			}
			return nil
		})
	}()
	select {
	case d := <-clk.Waits:
		clk.Add(d)
	case err := <-done:
		t.Fatalf("the open breaker ended the call (%v) before the wait that closes it", err)
	case <-time.After(spectest.Guard):
		t.Fatal("no wait was started")
	}
	select {
	case err := <-done:
		if err != nil || calls != 2 {
			t.Fatalf("error %v after %d calls, want the probe admitted and succeeding", err, calls)
		}
	case <-time.After(spectest.Guard):
		t.Fatal("the call did not return")
	}
}
