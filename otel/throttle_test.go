package otelbackoff_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/throttle"
)

func TestObserveThrottle(t *testing.T) {
	h := newHarness(t)
	tr := throttle.New(throttle.WithClock(clock.NewMock()), throttle.WithRandom(func() float64 { return 0 }))
	if _, err := h.in.ObserveThrottle("api", tr); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	equalPoints(t, "probability", h.points(t, "backoff.throttle.rejection_probability"), map[string]float64{"guard.name=api": 0})
	p, err := tr.Allow(ctx, guard.Call{Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	tr.Record(p, guard.Outcome{Err: errTransient}) // 1 request, no accept
	if _, err := tr.Allow(ctx, guard.Call{Attempt: 1}); !errors.Is(err, throttle.ErrThrottled) {
		t.Fatalf("a call after a failure: %v, want ErrThrottled", err)
	}
	equalPoints(t, "refusals", h.points(t, "backoff.throttle.refusals"), map[string]float64{"guard.name=api": 1})
	// 2 requests (the rejected one counts), no accepts: (2 - 2*0) / (2 + 1).
	got := h.points(t, "backoff.throttle.rejection_probability")["guard.name=api"]
	if math.Abs(got-2.0/3) > 1e-9 {
		t.Errorf("rejection probability %v, want 2/3", got)
	}
}
