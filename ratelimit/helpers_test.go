package ratelimit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	"github.com/herdsafe/backoff/ratelimit"
	"golang.org/x/time/rate"
)

// newLimiter returns a Limiter of r calls a second and burst on a mock
// clock that reports its timers.
func newLimiter(t *testing.T, r rate.Limit, burst int, opts ...ratelimit.Option) (*ratelimit.Limiter, *spectest.Clock) {
	t.Helper()
	clk := spectest.NewClock()
	l := ratelimit.New(r, burst, append([]ratelimit.Option{ratelimit.WithClock(clk)}, opts...)...)
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	return l, clk
}

// admitted asks l to admit a call with ctx, and reports whether it did;
// any refusal but ErrRateLimited fails the test.
func admitted(t *testing.T, l *ratelimit.Limiter, ctx context.Context) bool {
	t.Helper()
	_, err := l.Allow(ctx, guard.Call{Attempt: 1})
	switch {
	case err == nil:
		return true
	case errors.Is(err, ratelimit.ErrRateLimited):
		return false
	}
	t.Fatalf("Allow = %v, want nil or ErrRateLimited", err)
	return false
}

// noWait fails the test if a timer was started on clk.
func noWait(t *testing.T, clk *spectest.Clock) {
	t.Helper()
	select {
	case d := <-clk.Waits:
		t.Fatalf("a wait of %v was started", d)
	default:
	}
}

// waitFor returns the duration of the next timer started on clk.
func waitFor(t *testing.T, clk *spectest.Clock) time.Duration {
	t.Helper()
	select {
	case d := <-clk.Waits:
		return d
	case <-time.After(spectest.Guard):
		t.Fatal("no wait was started")
		return 0
	}
}
