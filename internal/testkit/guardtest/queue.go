package guardtest

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
)

// Waited is how the Allow of one of a test's [Waiters] returned.
type Waited struct {
	ID     int
	Permit guard.Permit
	Err    error
}

// Waiters are callers of a guard that may block in Allow, as one with a
// queue does, each asking on a goroutine of its own and reporting how its
// Allow returned. The test reads the reports without blocking ([Waiters.Next],
// [Waiters.None]), so that a blocking read cannot let a testing/synctest
// bubble's virtual time run on and fire the timers the test means to
// drive.
type Waiters struct{ out chan Waited }

// NewWaiters returns Waiters with room for n reports unread.
func NewWaiters(n int) *Waiters { return &Waiters{out: make(chan Waited, n)} }

// Start starts the caller id, which asks g to admit a first attempt with
// ctx.
func (w *Waiters) Start(g guard.Guard, ctx context.Context, id int) {
	go func() {
		p, err := g.Allow(ctx, guard.Call{Attempt: 1})
		w.out <- Waited{id, p, err}
	}()
}

// Next returns the report of a caller that has returned, failing the test
// if none has.
func (w *Waiters) Next(t testing.TB) Waited {
	t.Helper()
	select {
	case r := <-w.out:
		return r
	default:
		t.Fatal("no caller returned")
		return Waited{}
	}
}

// Wait returns the report of the next caller to return, waiting for it:
// in a testing/synctest bubble, virtual time runs on until one does.
func (w *Waiters) Wait() Waited { return <-w.out }

// None fails the test if a caller has returned.
func (w *Waiters) None(t testing.TB) {
	t.Helper()
	select {
	case r := <-w.out:
		t.Fatalf("caller %d returned (%v), want it still waiting", r.ID, r.Err)
	default:
	}
}

// QueueCounts is what a guard with a queue reports of it in its Stats.
type QueueCounts struct {
	InFlight, Queued  int
	Refused, Canceled uint64
}

// Queue checks, in a testing/synctest bubble, the guard that fresh makes
// on a mock clock: one with a limit of 1 call in flight, a queue of 2
// (WithQueue) and a maximum wait of wait (WithMaxWait) on that clock
// (WithClock), whose refusals match sentinel and whose Stats counts reads.
// It checks what the guard makes of its queue: a caller that finds the
// queue full is refused with an error that matches sentinel; a queued
// caller is refused so once its wait has passed on the clock, to the
// nanosecond; one whose context ends while it waits gets the context's
// error, which does not match sentinel; neither holds a slot; a call that
// ends hands its slot to the caller that has waited longest; and each is
// counted.
func Queue[G guard.Guard](t *testing.T, fresh func(clk clock.Clock) G, wait time.Duration, sentinel error, counts func(G) QueueCounts) {
	t.Helper()
	want := func(t *testing.T, g G, c QueueCounts) {
		t.Helper()
		if got := counts(g); got != c {
			t.Errorf("counts %+v, want %+v", got, c)
		}
	}
	synctest.Test(t, func(t *testing.T) {
		mock := clock.NewMock()
		g := fresh(mock)
		ctx := context.Background()
		held, err := g.Allow(ctx, guard.Call{Attempt: 1})
		if err != nil {
			t.Fatalf("the first call: %v", err)
		}
		w := NewWaiters(2)
		w.Start(g, ctx, 0)
		gone, cancel := context.WithCancel(ctx)
		w.Start(g, gone, 1)
		synctest.Wait()
		if _, err := g.Allow(ctx, guard.Call{Attempt: 1}); !errors.Is(err, sentinel) {
			t.Fatalf("a caller finding the queue full: %v, want %v", err, sentinel)
		}
		want(t, g, QueueCounts{InFlight: 1, Queued: 2, Refused: 1})

		cancel()
		synctest.Wait()
		if r := w.Next(t); r.ID != 1 || !errors.Is(r.Err, context.Canceled) || errors.Is(r.Err, sentinel) {
			t.Fatalf("caller %d returned %v, want the cancelled caller 1 with the context's error", r.ID, r.Err)
		}
		mock.Add(wait - time.Nanosecond)
		synctest.Wait()
		w.None(t)
		mock.Add(time.Nanosecond)
		synctest.Wait()
		if r := w.Next(t); r.ID != 0 || !errors.Is(r.Err, sentinel) {
			t.Fatalf("caller %d returned %v, want caller 0 refused at its maximum wait", r.ID, r.Err)
		}
		want(t, g, QueueCounts{InFlight: 1, Refused: 2, Canceled: 1})

		for i := 2; i < 4; i++ {
			w.Start(g, ctx, i)
			synctest.Wait()
		}
		for i := 2; i < 4; i++ {
			g.Record(held, guard.Outcome{})
			synctest.Wait()
			r := w.Next(t)
			if r.ID != i || r.Err != nil {
				t.Fatalf("a call ended: caller %d admitted (%v), want caller %d", r.ID, r.Err, i)
			}
			held = r.Permit
		}
		g.Record(held, guard.Outcome{})
		want(t, g, QueueCounts{Refused: 2, Canceled: 1})
	})
}
