package otelbackoff_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
)

func TestObserveBulkhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		b := bulkhead.New(1, bulkhead.WithQueue(1))
		if _, err := h.in.ObserveBulkhead("db", b); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		held, err := b.Allow(ctx, guard.Call{Attempt: 1})
		if err != nil {
			t.Fatal(err)
		}
		waitCtx, cancel := context.WithCancel(ctx)
		done := make(chan error)
		go func() {
			_, err := b.Allow(waitCtx, guard.Call{Attempt: 1})
			done <- err
		}()
		synctest.Wait() // the second caller waits in the queue
		if _, err := b.Allow(ctx, guard.Call{Attempt: 1}); !errors.Is(err, bulkhead.ErrBulkheadFull) {
			t.Fatalf("a third caller: %v, want ErrBulkheadFull", err)
		}
		own := func(v float64) map[string]float64 { return map[string]float64{"guard.name=db": v} }
		equalPoints(t, "in_flight", h.points(t, "backoff.bulkhead.in_flight"), own(1))
		equalPoints(t, "queued", h.points(t, "backoff.bulkhead.queued"), own(1))
		equalPoints(t, "limit", h.points(t, "backoff.bulkhead.limit"), own(1))
		equalPoints(t, "refusals", h.points(t, "backoff.bulkhead.refusals"), own(1))
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("the queued caller: %v, want context.Canceled", err)
		}
		b.Record(held, guard.Outcome{})
		equalPoints(t, "in_flight", h.points(t, "backoff.bulkhead.in_flight"), own(0))
		equalPoints(t, "queued", h.points(t, "backoff.bulkhead.queued"), own(0))
		equalPoints(t, "cancellations", h.points(t, "backoff.bulkhead.cancellations"), own(1))
	})
}

func TestObservePriorityBulkhead(t *testing.T) {
	h := newHarness(t)
	b := bulkhead.NewPriority(4) // low calls may take it to 2, standard ones to 3
	if _, err := h.in.ObservePriorityBulkhead("db", b); err != nil {
		t.Fatal(err)
	}
	low := bulkhead.WithPriority(context.Background(), bulkhead.Low)
	for i := range 3 {
		_, err := b.Allow(low, guard.Call{Attempt: 1})
		if refused := errors.Is(err, bulkhead.ErrBulkheadFull); refused != (i == 2) {
			t.Fatalf("low call %d: %v", i+1, err)
		}
	}
	equalPoints(t, "in_flight", h.points(t, "backoff.bulkhead.in_flight"), map[string]float64{"guard.name=db": 2})
	equalPoints(t, "limit", h.points(t, "backoff.bulkhead.limit"), map[string]float64{"guard.name=db": 4})
	equalPoints(t, "refusals", h.points(t, "backoff.bulkhead.refusals"), map[string]float64{
		"bulkhead.priority=low,guard.name=db":      1,
		"bulkhead.priority=standard,guard.name=db": 0,
		"bulkhead.priority=critical,guard.name=db": 0,
	})
	if got := h.points(t, "backoff.bulkhead.queued"); got != nil {
		t.Errorf("a priority bulkhead has no queue, but queued = %v", got)
	}
}
