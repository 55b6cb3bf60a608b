package otelbackoff_test

import (
	"context"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/ratelimit"
)

// A rate limiter is reported with its rate, burst, tokens and refusals,
// read from its Stats.
func TestObserveRateLimiter(t *testing.T) {
	h := newHarness(t)
	l := ratelimit.New(10, 2, ratelimit.WithClock(clock.NewMock()))
	for range 3 { // two admitted, one refused
		_, _ = l.Allow(context.Background(), guard.Call{Attempt: 1})
	}
	if _, err := h.in.Observe("api", l); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{
		"backoff.ratelimit.rate": 10, "backoff.ratelimit.burst": 2, "backoff.ratelimit.tokens": 0,
		"backoff.ratelimit.waiting": 0, "backoff.ratelimit.waited": 0, "backoff.ratelimit.refusals": 1,
	} {
		if got, ok := h.points(t, name)["guard.name=api"]; !ok || got != want {
			t.Errorf("%s = %v (present: %v), want %v", name, got, ok, want)
		}
	}
}
