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
	"github.com/herdsafe/backoff/limiter"
)

// result is how a queued caller's Allow returned.
type result struct {
	id  int
	p   guard.Permit
	err error
}

// queueCaller starts a caller that asks l to admit a call with ctx and
// reports on out.
func queueCaller(l *limiter.Limiter, ctx context.Context, id int, out chan<- result) {
	go func() {
		p, err := l.Allow(ctx, guard.Call{Attempt: 1})
		out <- result{id, p, err}
	}()
}

// next returns the result of a caller that has returned, failing the test
// if none has.
func next(t *testing.T, out <-chan result) result {
	t.Helper()
	select {
	case r := <-out:
		return r
	default:
		t.Fatal("no caller returned")
		return result{}
	}
}

func noResult(t *testing.T, out <-chan result) {
	t.Helper()
	select {
	case r := <-out:
		t.Fatalf("caller %d returned (%v), want it still waiting", r.id, r.err)
	default:
	}
}

// A call that ends hands its place to the caller that has waited longest;
// a caller that finds the queue full is refused at once.
func TestQueueIsFIFO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 4
		l := limiter.New(limiter.WithInitialLimit(1), limiter.WithFloor(1), limiter.WithCeiling(1), limiter.WithQueue(n))
		ctx := context.Background()
		held := admit(t, l, ctx, 1)[0]
		out := make(chan result, n)
		for i := range n {
			queueCaller(l, ctx, i, out)
			synctest.Wait()
		}
		if _, err := l.Allow(ctx, guard.Call{Attempt: 1}); !errors.Is(err, limiter.ErrLimitExceeded) {
			t.Fatalf("a caller finding the queue full: %v", err)
		}
		if s := l.Stats(); s.InFlight != 1 || s.Queued != n || s.RefusedStandard != 1 {
			t.Fatalf("Stats() = %+v", s)
		}
		for i := range n {
			noResult(t, out)
			l.Record(held, guard.Outcome{})
			synctest.Wait()
			r := next(t, out)
			if r.err != nil || r.id != i {
				t.Fatalf("release %d admitted caller %d (%v), want caller %d", i+1, r.id, r.err, i)
			}
			held = r.p
		}
		l.Record(held, guard.Outcome{})
		if s := l.Stats(); s.InFlight != 0 || s.Queued != 0 {
			t.Fatalf("Stats() = %+v", s)
		}
	})
}

// A queued caller is refused once its maximum wait passes on the
// Limiter's clock, to the nanosecond, and one whose context ends leaves
// with the context's error; neither holds a place.
func TestQueueMaxWaitAndCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const wait = 50 * time.Millisecond
		mock := clock.NewMock()
		l := limiter.New(limiter.WithInitialLimit(1), limiter.WithCeiling(1), limiter.WithQueue(2), limiter.WithMaxWait(wait), limiter.WithClock(mock))
		ctx := context.Background()
		held := admit(t, l, ctx, 1)[0]
		out := make(chan result, 2)
		queueCaller(l, ctx, 0, out)
		cctx, cancel := context.WithCancel(ctx)
		queueCaller(l, cctx, 1, out)
		synctest.Wait()
		cancel()
		synctest.Wait()
		if r := next(t, out); r.id != 1 || !errors.Is(r.err, context.Canceled) || errors.Is(r.err, limiter.ErrLimitExceeded) {
			t.Fatalf("the cancelled caller: %d, %v", r.id, r.err)
		}
		mock.Add(wait - time.Nanosecond)
		synctest.Wait()
		noResult(t, out)
		mock.Add(time.Nanosecond)
		synctest.Wait()
		if r := next(t, out); r.id != 0 || !errors.Is(r.err, limiter.ErrLimitExceeded) {
			t.Fatalf("the caller past its wait: %d, %v", r.id, r.err)
		}
		if s := l.Stats(); s.InFlight != 1 || s.Queued != 0 || s.Canceled != 1 || s.RefusedStandard != 1 {
			t.Fatalf("Stats() = %+v", s)
		}
		l.Record(held, guard.Outcome{})
		admit(t, l, ctx, 1) // the place came back, to nobody queued
	})
}

// A limit that grows admits the callers queued into the places it makes.
func TestQueueAdmitsWhenTheLimitGrows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newManualClock()
		l := limiter.New(limiter.WithInitialLimit(2), limiter.WithQueue(4), limiter.WithWindow(time.Nanosecond, 1), limiter.WithClock(clk))
		ctx := context.Background()
		held := admit(t, l, ctx, 2)
		out := make(chan result, 2)
		queueCaller(l, ctx, 0, out)
		synctest.Wait()
		queueCaller(l, ctx, 1, out)
		synctest.Wait()
		clk.Add(10 * time.Millisecond) // the first call's latency
		// The first call's end hands its place to caller 0 and ends a
		// window in which nothing queued: the limit grows to 3, and caller
		// 1 takes the place it makes.
		l.Record(held[0], guard.Outcome{})
		synctest.Wait()
		a, b := next(t, out), next(t, out)
		if a.err != nil || b.err != nil {
			t.Fatalf("the queued callers: %v, %v", a.err, b.err)
		}
		if s := l.Stats(); s.Limit != 3 || s.InFlight != 3 || s.Queued != 0 {
			t.Fatalf("Stats() = %+v", s)
		}
		recordAll(l, []guard.Permit{held[1], a.p, b.p}, guard.Outcome{Abandoned: true})
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
		out := make(chan result, 1)
		queueCaller(l, ctx, 0, out)
		synctest.Wait()
		if s := l.Stats(); s.Queued != 1 {
			t.Fatalf("the standard call did not queue: %+v", s)
		}
		recordAll(l, held, guard.Outcome{Abandoned: true})
		synctest.Wait()
		r := next(t, out)
		if r.err != nil {
			t.Fatal(r.err)
		}
		l.Record(r.p, guard.Outcome{Abandoned: true})
	})
}
