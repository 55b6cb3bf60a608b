package limiter_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
	"github.com/herdsafe/backoff/limiter"
)

// The queue's own behaviour (hand-off, maximum wait, cancellation, under
// load too) is tested in internal/queue; these tests check what the
// Limiter makes of it: its options, ErrLimitExceeded and its Stats, the
// growth of its limit, and its priorities.
func TestQueue(t *testing.T) {
	const wait = 50 * time.Millisecond
	guardtest.Queue(t, func(clk clock.Clock) *limiter.Limiter {
		return limiter.New(limiter.WithInitialLimit(1), limiter.WithCeiling(1), limiter.WithQueue(2), limiter.WithMaxWait(wait), limiter.WithClock(clk))
	}, wait, limiter.ErrLimitExceeded, func(l *limiter.Limiter) guardtest.QueueCounts {
		s := l.Stats()
		return guardtest.QueueCounts{InFlight: s.InFlight, Queued: s.Queued, Refused: s.Refused(), Canceled: s.Canceled}
	})
}

// A limit that grows admits the callers queued into the places it makes.
func TestQueueAdmitsWhenTheLimitGrows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newManualClock()
		l := limiter.New(limiter.WithInitialLimit(2), limiter.WithQueue(4), limiter.WithWindow(time.Nanosecond, 1), limiter.WithClock(clk))
		ctx := context.Background()
		held := admit(t, l, ctx, 2)
		w := guardtest.NewWaiters(2)
		w.Start(l, ctx, 0)
		synctest.Wait()
		w.Start(l, ctx, 1)
		synctest.Wait()
		clk.Add(10 * time.Millisecond) // the first call's latency
		// The first call's end hands its place to caller 0 and ends a
		// window in which nothing queued: the limit grows to 3, and caller
		// 1 takes the place it makes.
		l.Record(held[0], guard.Outcome{})
		synctest.Wait()
		a, b := w.Next(t), w.Next(t)
		if a.Err != nil || b.Err != nil {
			t.Fatalf("the queued callers: %v, %v", a.Err, b.Err)
		}
		if s := l.Stats(); s.Limit != 3 || s.InFlight != 3 || s.Queued != 0 {
			t.Fatalf("Stats() = %+v", s)
		}
		recordAll(l, []guard.Permit{held[1], a.Permit, b.Permit}, guard.Outcome{Abandoned: true})
	})
}

// Priorities: low calls may take half of the limit, standard ones 80%,
// critical ones all of it; a shed call is refused at once, never queued.
// Without WithPriorityThresholds the context's priority is not read.
func TestPriorityThresholds(t *testing.T) {
	l := limiter.New(limiter.WithInitialLimit(10), limiter.WithPriorityThresholds(0.5, 0.8), limiter.WithQueue(5))
	ctx := context.Background()
	low, critical := bulkhead.WithPriority(ctx, bulkhead.Low), bulkhead.WithPriority(ctx, bulkhead.Critical)
	held := admit(t, l, low, 5)
	_, err := l.Allow(low, guard.Call{Attempt: 1})
	var shed limiter.ShedError
	if !errors.As(err, &shed) || shed.Threshold != 0.5 || !errors.Is(err, limiter.ErrLimitExceeded) {
		t.Fatalf("the sixth low call: %v, want a ShedError at 0.5", err)
	}
	held = append(held, admit(t, l, ctx, 3)...) // standard: up to 8
	if _, err := l.Allow(ctx, guard.Call{Attempt: 1}); !errors.As(err, &shed) || shed.Threshold != 0.8 {
		t.Fatalf("the ninth call, standard: %v", err)
	}
	held = append(held, admit(t, l, critical, 2)...)
	if s := l.Stats(); s.InFlight != 10 || s.RefusedLow != 1 || s.RefusedStandard != 1 || s.RefusedCritical != 0 || s.Queued != 0 {
		t.Fatalf("Stats() = %+v", s)
	}
	if got := shed.Error(); got != "limiter: standard call shed above 80% of the concurrency limit" {
		t.Errorf("ShedError: %q", got)
	}
	recordAll(l, held, guard.Outcome{Abandoned: true})

	plain := limiter.New(limiter.WithInitialLimit(3))
	admit(t, plain, low, 3) // all of the limit
}

// A priority whose threshold is 1 may take the whole limit, and so waits
// in the queue like a critical call; a low one is shed at once.
func TestPriorityOfTheWholeLimitQueues(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := limiter.New(limiter.WithInitialLimit(1), limiter.WithPriorityThresholds(0.5, 1), limiter.WithQueue(2))
		ctx := context.Background()
		held := admit(t, l, ctx, 1)
		if _, err := l.Allow(bulkhead.WithPriority(ctx, bulkhead.Low), guard.Call{Attempt: 1}); !errors.Is(err, limiter.ErrLimitExceeded) {
			t.Fatalf("a low call: %v, want it shed", err)
		}
		w := guardtest.NewWaiters(1)
		w.Start(l, ctx, 0)
		synctest.Wait()
		if s := l.Stats(); s.Queued != 1 {
			t.Fatalf("the standard call did not queue: %+v", s)
		}
		recordAll(l, held, guard.Outcome{Abandoned: true})
		synctest.Wait()
		r := w.Next(t)
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		l.Record(r.Permit, guard.Outcome{Abandoned: true})
	})
}
