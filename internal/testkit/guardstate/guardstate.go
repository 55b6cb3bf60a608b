// Package guardstate puts the repository's guards in the states that the
// tests of what reads a guard's state need (the wait a server asks of the
// clients it refuses, the metrics of a guard): a breaker open for a while,
// callers waiting in a guard's queue.
package guardstate

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/guard"
)

// OpenBreaker returns a breaker that one failure opened for open, on a
// mock clock moved on by elapsed since, and the error it refuses a call
// with then: a *breaker.OpenError whose wait is open − elapsed (elapsed is
// shorter than open).
func OpenBreaker(t testing.TB, open, elapsed time.Duration) (*breaker.Breaker, *clock.Mock, error) {
	t.Helper()
	clk := clock.NewMock()
	cb := breaker.New(breaker.WithClock(clk), breaker.WithConsecutiveFailures(1), breaker.WithOpenDuration(open))
	p, err := cb.Allow(context.Background(), guard.Call{Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	cb.Record(p, guard.Outcome{Err: errors.New("down")})
	clk.Add(elapsed)
	_, err = cb.Allow(context.Background(), guard.Call{Attempt: 1})
	if !errors.Is(err, breaker.ErrCircuitOpen) {
		t.Fatalf("the open breaker admitted a call: %v", err)
	}
	return cb, clk, err
}

// Queue has n callers wait for g, inside a synctest bubble, and returns
// once they all wait. release ends the waits, and checks that each ended
// with its context's error.
func Queue(t testing.TB, g guard.Guard, n int) (release func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, n)
	for range n {
		go func() {
			_, err := g.Allow(ctx, guard.Call{Attempt: 1})
			done <- err
		}()
	}
	synctest.Wait() // every one of them waits
	return func() {
		cancel()
		for range n {
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("a queued caller ended with %v, want its context's error", err)
			}
		}
	}
}

// Crowd has g admit admitted calls and Queue queued more, and returns the
// error g refuses one more call with.
func Crowd(t testing.TB, g guard.Guard, admitted, queued int) (release func(), refusal error) {
	t.Helper()
	for range admitted {
		if _, err := g.Allow(context.Background(), guard.Call{Attempt: 1}); err != nil {
			t.Fatal(err)
		}
	}
	release = Queue(t, g, queued)
	_, refusal = g.Allow(context.Background(), guard.Call{Attempt: 1})
	return release, refusal
}
