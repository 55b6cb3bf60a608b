package otelbackoff_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/limiter"
)

func TestObserveLimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		l := limiter.New(limiter.WithInitialLimit(2), limiter.WithQueue(1), limiter.WithPriorityThresholds(0.5, 1))
		if _, err := h.in.ObserveLimiter("db", l); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		low := bulkhead.WithPriority(ctx, bulkhead.Low)
		first, err := l.Allow(low, guard.Call{Attempt: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Allow(low, guard.Call{Attempt: 1}); !errors.Is(err, limiter.ErrLimitExceeded) {
			t.Fatalf("a second low call: %v, want it shed", err)
		}
		second, err := l.Allow(ctx, guard.Call{Attempt: 1})
		if err != nil {
			t.Fatal(err)
		}
		waitCtx, cancel := context.WithCancel(ctx)
		done := make(chan error)
		go func() {
			_, err := l.Allow(waitCtx, guard.Call{Attempt: 1})
			done <- err
		}()
		synctest.Wait() // the third standard caller waits in the queue
		own := func(v float64) map[string]float64 { return map[string]float64{"guard.name=db": v} }
		equalPoints(t, "limit", h.points(t, "backoff.limiter.limit"), own(2))
		equalPoints(t, "in_flight", h.points(t, "backoff.limiter.in_flight"), own(2))
		equalPoints(t, "queued", h.points(t, "backoff.limiter.queued"), own(1))
		equalPoints(t, "refusals", h.points(t, "backoff.limiter.refusals"), map[string]float64{
			"guard.name=db,limiter.priority=low":      1,
			"guard.name=db,limiter.priority=standard": 0,
			"guard.name=db,limiter.priority=critical": 0,
		})
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("the queued caller: %v, want context.Canceled", err)
		}
		l.Record(first, guard.Outcome{Abandoned: true})
		l.Record(second, guard.Outcome{Abandoned: true})
		equalPoints(t, "in_flight", h.points(t, "backoff.limiter.in_flight"), own(0))
		equalPoints(t, "queued", h.points(t, "backoff.limiter.queued"), own(0))
		equalPoints(t, "cancellations", h.points(t, "backoff.limiter.cancellations"), own(1))
	})
}
