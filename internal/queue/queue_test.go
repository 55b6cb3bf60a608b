package queue_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/internal/queue"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
)

// A freed slot goes to the caller that has waited longest, without being
// given back: the calls in flight stay at the limit while anyone waits.
func TestFIFO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 6
		g := newGate(1, n, 0, nil)
		w := queueCallers(t, g, n)
		wantLoad(t, g, 1, n)
		for i := range n {
			w.None(t)
			release(g, 1)
			synctest.Wait()
			if r := w.Next(t); r.Err != nil || r.ID != i {
				t.Fatalf("release %d admitted caller %d (%v), want caller %d", i+1, r.ID, r.Err, i)
			}
			wantLoad(t, g, 1, n-1-i)
		}
		release(g, 1)
		wantLoad(t, g, 0, 0)
	})
}

// A caller that arrives just as a slot is handed to a waiter does not take
// it, by the fast path or the slow: it queues behind.
func TestNewcomerDoesNotBargeAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(1, 2, 0, nil)
		fill(t, g, 1)
		w := guardtest.NewWaiters(2)
		w.Start(g, context.Background(), 1)
		synctest.Wait()
		release(g, 1) // handed to caller 1, which has not run yet
		if _, ok := g.TryAcquire(g.Limit()); ok {
			t.Fatal("TryAcquire took the slot handed to a waiter")
		}
		w.Start(g, context.Background(), 2) // arrives before caller 1 wakes
		synctest.Wait()
		if r := w.Next(t); r.ID != 1 || r.Err != nil {
			t.Fatalf("caller %d admitted (%v), want caller 1", r.ID, r.Err)
		}
		w.None(t)
		wantLoad(t, g, 1, 1)
		release(g, 1)
		synctest.Wait()
		if r := w.Next(t); r.ID != 2 || r.Err != nil {
			t.Fatalf("caller %d admitted (%v), want caller 2", r.ID, r.Err)
		}
		release(g, 1)
	})
}

// Without a queue a caller that finds no slot is refused with the guard's
// sentinel itself; with a full queue, with an error that matches it.
func TestRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		bare := newGate(1, 0, 0, nil)
		fill(t, bare, 1)
		if err := bare.Acquire(ctx); err != errFull {
			t.Errorf("Acquire without a queue = %v, want the sentinel itself", err)
		}
		wantLoad(t, bare, 1, 0)
		release(bare, 1)
		if err := bare.Acquire(ctx); err != nil {
			t.Errorf("Acquire with a slot free: %v", err)
		}
		release(bare, 1)

		g := newGate(2, 2, 0, nil)
		fill(t, g, 2)
		w := guardtest.NewWaiters(2)
		w.Start(g, ctx, 1)
		w.Start(g, ctx, 2)
		synctest.Wait()
		err := g.Acquire(ctx)
		if !errors.Is(err, errFull) || queue.GaveUp(err) || err.Error() != "guard: full, and so is its queue" {
			t.Fatalf("Acquire with the queue full = %v, want a refusal matching the sentinel", err)
		}
		wantLoad(t, g, 2, 2)
		release(g, 4)
		synctest.Wait()
		for range 2 {
			if r := w.Next(t); r.Err != nil {
				t.Errorf("caller %d: %v", r.ID, r.Err)
			}
		}
		wantLoad(t, g, 0, 0)
	})
}

// The maximum wait is timed by the guard's clock: a mock clock drives it,
// to the nanosecond, and the caller refused holds no slot.
func TestMaxWaitOnMockClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const wait = 3 * time.Second
		mock := clock.NewMock()
		g := newGate(1, 1, wait, mock)
		w := queueCallers(t, g, 1)
		mock.Add(wait - time.Nanosecond)
		synctest.Wait()
		w.None(t)
		mock.Add(time.Nanosecond)
		synctest.Wait()
		r := w.Next(t)
		if !errors.Is(r.Err, errFull) || queue.GaveUp(r.Err) || r.Err.Error() != "guard: full: not admitted within the maximum wait of 3s" {
			t.Fatalf("after the maximum wait: %v, want a refusal matching the sentinel", r.Err)
		}
		wantLoad(t, g, 1, 0)
		release(g, 1)
		wantLoad(t, g, 0, 0) // nobody left holding the slot
	})
}

// The default clock is the time package's: in a synctest bubble the wait
// is virtual, and exact.
func TestMaxWaitOnTheTimePackagesClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const wait = 250 * time.Millisecond
		g := newGate(1, 1, wait, nil)
		fill(t, g, 1)
		start := time.Now()
		if err := g.Acquire(context.Background()); !errors.Is(err, errFull) {
			t.Fatalf("Acquire = %v, want a refusal", err)
		}
		if waited := time.Since(start); waited != wait {
			t.Errorf("refused after %v, want %v", waited, wait)
		}
		release(g, 1)
	})
}

// A caller handed a slot within its maximum wait is admitted, and its
// timer stopped.
func TestSlotWithinMaxWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mock := clock.NewMock()
		g := newGate(1, 1, time.Second, mock)
		w := queueCallers(t, g, 1)
		mock.Add(time.Second / 2)
		release(g, 1)
		synctest.Wait()
		if r := w.Next(t); r.Err != nil {
			t.Fatalf("handed a slot within the wait: %v", r.Err)
		}
		mock.Add(time.Hour) // the stopped timer must not fire into anything
		wantLoad(t, g, 1, 0)
		release(g, 1)
	})
}

// A slot handed over as the maximum wait runs out is kept: the caller's
// context is alive, and the slot is free for it.
func TestSlotAsMaxWaitRunsOut(t *testing.T) {
	for range 20 { // the waiter's select sees both at once, and picks either
		synctest.Test(t, func(t *testing.T) {
			mock := clock.NewMock()
			g := newGate(1, 1, time.Second, mock)
			w := queueCallers(t, g, 1)
			release(g, 1)         // handed over...
			mock.Add(time.Second) // ...and the timer fires before the waiter runs
			synctest.Wait()
			if r := w.Next(t); r.Err != nil {
				t.Fatalf("a slot handed over as the wait ran out: %v, want it kept", r.Err)
			}
			wantLoad(t, g, 1, 0)
			release(g, 1)
		})
	}
}

// A caller whose context is done before it asks is not admitted, though a
// slot is free; one whose context ends while it waits leaves the queue
// with the context's error, and the next release goes to the caller behind
// it.
func TestContextEnds(t *testing.T) {
	cause := errors.New("client went away")
	done, stop := context.WithCancelCause(context.Background())
	stop(cause)
	if err := newGate(1, 1, 0, nil).Acquire(done); err == nil {
		t.Fatal("a done context was admitted")
	} else {
		wantGaveUp(t, err, context.Canceled, cause)
		if err.Error() != "guard: not admitted: client went away" {
			t.Errorf("the error says %q", err)
		}
	}

	cases := []struct {
		name string
		ctx  func() (context.Context, func())
		want []error
	}{
		{"cancel", func() (context.Context, func()) {
			return context.WithCancel(context.Background())
		}, []error{context.Canceled}},
		{"cancel with a cause", func() (context.Context, func()) {
			ctx, cancel := context.WithCancelCause(context.Background())
			return ctx, func() { cancel(cause) }
		}, []error{context.Canceled, cause}},
		{"deadline", func() (context.Context, func()) {
			// Nothing to do: the test's wait for the caller lets the
			// bubble's virtual time run to the deadline.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			_ = cancel // the bubble's end frees it
			return ctx, func() {}
		}, []error{context.DeadlineExceeded}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := newGate(1, 2, time.Hour, nil)
				fill(t, g, 1)
				w := guardtest.NewWaiters(2)
				ctx, end := c.ctx()
				w.Start(g, ctx, 1)
				w.Start(g, context.Background(), 2)
				synctest.Wait()
				end()
				r := w.Wait() // for a deadline, virtual time runs to it
				if r.ID != 1 {
					t.Fatalf("caller %d returned first (%v), want caller 1", r.ID, r.Err)
				}
				wantGaveUp(t, r.Err, c.want...)
				wantLoad(t, g, 1, 1)
				release(g, 1) // to caller 2, not to the one that left
				synctest.Wait()
				if r := w.Next(t); r.ID != 2 || r.Err != nil {
					t.Fatalf("caller %d: %v, want caller 2 admitted", r.ID, r.Err)
				}
				release(g, 1)
				wantLoad(t, g, 0, 0)
			})
		})
	}
}

// A slot handed to a caller as its context ends goes on to the next
// caller: the one that gave up holds none.
func TestSlotHandedAsContextEnds(t *testing.T) {
	for range 50 { // the waiter wakes by its context or by the slot: either
		synctest.Test(t, func(t *testing.T) {
			g := newGate(1, 2, 0, nil)
			fill(t, g, 1)
			w := guardtest.NewWaiters(2)
			ctx, cancel := context.WithCancel(context.Background())
			w.Start(g, ctx, 1)
			synctest.Wait()
			w.Start(g, context.Background(), 2)
			synctest.Wait()
			// Caller 1's context ends, and a slot is freed before or after
			// it wakes: handed to it, or to caller 2 if it left first.
			// Either way caller 1 must not keep it.
			cancel()
			release(g, 1)
			synctest.Wait()
			got := map[int]error{}
			for range 2 {
				r := w.Next(t)
				got[r.ID] = r.Err
			}
			wantGaveUp(t, got[1], context.Canceled)
			if got[2] != nil {
				t.Errorf("caller 2: %v, want the slot caller 1 gave up", got[2])
			}
			wantLoad(t, g, 1, 0)
			release(g, 1)
		})
	}
}

// Many callers that give up leave nothing behind: no goroutine, no slot, no
// place in the queue, and a release after them does not block.
func TestManyCallersGiveUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 100
		g := newGate(2, n, time.Hour, nil)
		fill(t, g, 2)
		ctx, cancel := context.WithCancel(context.Background())
		w := guardtest.NewWaiters(n)
		for i := range n {
			w.Start(g, ctx, i)
		}
		synctest.Wait()
		wantLoad(t, g, 2, n)
		cancel()
		synctest.Wait()
		for range n {
			wantGaveUp(t, w.Next(t).Err, context.Canceled)
		}
		release(g, 2)
		wantLoad(t, g, 0, 0)
		fill(t, g, 2)
		release(g, 2)
	})
}
