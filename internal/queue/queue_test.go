package queue_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/guardtest"
	"github.com/herdsafe/backoff/internal/queue"
	"go.uber.org/goleak"
)

// errFull is the sentinel of the tests' guard, and errUnbalanced its panic
// for a Record too many.
var errFull = errors.New("guard: full")

const errUnbalanced = "guard: Record without a call in flight"

// gate is the least guard on a Queue, as Bulkhead and Limiter use theirs:
// Allow tries the fast path, then Acquire; Record releases.
type gate struct{ *queue.Queue }

func (g gate) Allow(ctx context.Context, _ guard.Call) (guard.Permit, error) {
	if _, ok := g.TryAcquire(g.Limit()); ok {
		return guard.Permit{}, nil
	}
	return guard.Permit{}, g.Acquire(ctx)
}

func (g gate) Record(guard.Permit, guard.Outcome) { g.Release() }

// newGate returns a gate of limit slots and a queue of size, timing the
// maximum wait on clk (the time package's clock if nil).
func newGate(limit, size int, maxWait time.Duration, clk clock.Clock) gate {
	if clk == nil {
		clk = clock.New()
	}
	q := new(queue.Queue)
	q.Init(queue.Config{Settings: queue.Settings{Size: size, MaxWait: maxWait}, Limit: limit, Clock: clk, Name: "guard", Refused: errFull, Unbalanced: errUnbalanced})
	return gate{q}
}

// fill takes n slots of g, failing the test if one is refused.
func fill(t *testing.T, g gate, n int) {
	t.Helper()
	for i := range n {
		if _, err := g.Allow(context.Background(), guard.Call{}); err != nil {
			t.Fatalf("call %d of %d refused: %v", i+1, n, err)
		}
	}
}

// queueCallers takes, in a testing/synctest bubble, every slot of g, and
// queues n callers on it in the order of their ids, from 0: each queued
// before the next arrives.
func queueCallers(t *testing.T, g gate, n int) *guardtest.Waiters {
	t.Helper()
	fill(t, g, int(g.Limit()))
	w := guardtest.NewWaiters(n)
	for i := range n {
		w.Start(g, context.Background(), i)
		synctest.Wait()
	}
	return w
}

// release gives back n slots of g.
func release(g gate, n int) {
	for range n {
		g.Record(guard.Permit{}, guard.Outcome{})
	}
}

// wantLoad checks the calls in flight and the callers queued.
func wantLoad(t *testing.T, g gate, inFlight, queued int) {
	t.Helper()
	if n, m := g.Load(); n != inFlight || m != queued {
		t.Errorf("Load() = %d in flight, %d queued; want %d, %d", n, m, inFlight, queued)
	}
}

// wantGaveUp checks that err is the error of a caller whose context ended,
// matching each of want and not the guard's sentinel.
func wantGaveUp(t *testing.T, err error, want ...error) {
	t.Helper()
	if !queue.GaveUp(err) || errors.Is(err, errFull) {
		t.Fatalf("%v: want the error of a caller that gave up, not a refusal", err)
	}
	for _, w := range want {
		if !errors.Is(err, w) {
			t.Errorf("%v does not match %v", err, w)
		}
	}
}

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

// A limit that grows admits the oldest waiters into the slots it makes; a
// limit that shrinks takes no slot back, and hands none on until the calls
// in flight are within it.
func TestSetLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 3
		g := newGate(2, n, 0, nil)
		w := queueCallers(t, g, n)
		g.SetLimit(4)
		synctest.Wait()
		admitted := map[int]bool{} // both woken at once: they report in either order
		for range 2 {
			r := w.Next(t)
			admitted[r.ID] = r.Err == nil
		}
		if !admitted[0] || !admitted[1] {
			t.Fatalf("the limit grew by 2: %v admitted, want callers 0 and 1", admitted)
		}
		w.None(t)
		wantLoad(t, g, 4, 1)

		g.SetLimit(2)
		wantLoad(t, g, 4, 1)
		release(g, 2) // 4 and 3 in flight, over the limit: freed
		synctest.Wait()
		w.None(t)
		wantLoad(t, g, 2, 1)
		release(g, 1) // within it: handed on
		synctest.Wait()
		if r := w.Next(t); r.ID != 2 || r.Err != nil {
			t.Fatalf("caller %d (%v), want caller 2 handed the slot", r.ID, r.Err)
		}
		wantLoad(t, g, 2, 0)
		g.SetLimit(3) // grows with nobody queued
		fill(t, g, 1)
		release(g, 3)
		wantLoad(t, g, 0, 0)
	})
}

// A release too many panics with the guard's words, and changes nothing;
// a zero Queue admits nobody.
func TestReleaseTooManyAndZeroQueue(t *testing.T) {
	g := newGate(2, 1, 0, nil)
	fill(t, g, 1)
	release(g, 1)
	if v := recovered(g.Release); v != errUnbalanced {
		t.Errorf("a release too many panicked with %v, want %q", v, errUnbalanced)
	}
	fill(t, g, 2) // both slots are still there, and no more
	if _, ok := g.TryAcquire(g.Limit()); ok {
		t.Error("a third call admitted")
	}
	wantLoad(t, g, 2, 0)

	var zero queue.Queue
	if _, ok := zero.TryAcquire(zero.Limit()); ok {
		t.Error("a zero Queue admitted a call")
	}
	if err := zero.Acquire(context.Background()); err == nil || queue.GaveUp(err) {
		t.Errorf("a zero Queue's Acquire = %v, want a refusal", err)
	}
	if v := recovered(zero.Release); v == nil {
		t.Error("a zero Queue released a call")
	}
}

// recovered runs fn and returns what it panicked with.
func recovered(fn func()) (v any) {
	defer func() { v = recover() }()
	fn()
	return nil
}

// The Queue starts no goroutine, not even for a queued caller's timer:
// the only goroutines are the callers'.
func TestStartsNoGoroutine(t *testing.T) {
	const n = 8
	for name, c := range map[string]clock.Clock{"mock clock": clock.NewMock(), "wall clock": clock.New()} {
		t.Run(name, func(t *testing.T) {
			g := newGate(1, n, time.Hour, c)
			fill(t, g, 1)
			goleak.VerifyNone(t) // the goroutines of the tests before have ended
			base := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() { _ = g.Acquire(ctx) })
			}
			for _, queued := g.Load(); queued < n; _, queued = g.Load() {
				runtime.Gosched()
			}
			if got := runtime.NumGoroutine(); got != base+n {
				t.Errorf("%d goroutines with %d callers queued, want %d", got, n, base+n)
			}
			cancel()
			wg.Wait()
			release(g, 1)
			wantLoad(t, g, 0, 0)
		})
	}
}

// Under load, with cancellations, the calls in flight never exceed the
// limit, nobody is queued while a slot is free, and every slot and every
// place in the queue comes back.
func TestConcurrentUse(t *testing.T) {
	const limit, callers, rounds = 2, 12, 200
	g := newGate(limit, callers, 0, nil)
	var active, peak, admitted, gaveUp, early atomic.Int64
	// A caller queued while a slot is free would wait for a release that
	// may never come: Load, read from one word, must never show it.
	done := make(chan struct{})
	var watcher sync.WaitGroup
	watcher.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			if n, m := g.Load(); m > 0 && n < limit {
				t.Errorf("Load() = %d in flight, %d queued: callers queued while a slot is free", n, m)
				return
			}
			runtime.Gosched()
		}
	})
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for i := range rounds {
				ctx, cancel := context.WithCancel(context.Background())
				if (c+i)%5 == 0 {
					cancel() // some give up before they ask, others while queued
					early.Add(1)
				} else if (c+i)%7 == 0 {
					go cancel()
				}
				_, err := g.Allow(ctx, guard.Call{})
				cancel()
				switch {
				case err == nil:
					n := active.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					admitted.Add(1)
					runtime.Gosched()
					active.Add(-1)
					release(g, 1)
				case queue.GaveUp(err):
					gaveUp.Add(1)
				default:
					t.Error(err) // the queue has room for everyone
				}
			}
		})
	}
	wg.Wait()
	close(done)
	watcher.Wait()
	if peak.Load() > limit {
		t.Errorf("%d calls in flight at once, limit %d", peak.Load(), limit)
	}
	if admitted.Load()+gaveUp.Load() != callers*rounds || gaveUp.Load() < early.Load() {
		t.Errorf("%d admitted + %d gave up (%d before asking), want %d calls", admitted.Load(), gaveUp.Load(), early.Load(), callers*rounds)
	}
	wantLoad(t, g, 0, 0)
}

// Under load, while the limit moves, the calls in flight never exceed the
// highest limit, and no caller is left waiting: in a synctest bubble, one
// stuck for good would fail the test as a deadlock.
func TestConcurrentUseAsTheLimitMoves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const most, callers, rounds = 4, 12, 200
		g := newGate(1, callers, 0, nil)
		var active, peak atomic.Int64
		var wg sync.WaitGroup
		for range callers {
			wg.Go(func() {
				for range rounds {
					if _, err := g.Allow(context.Background(), guard.Call{}); err != nil {
						t.Error(err)
						return
					}
					n := active.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					runtime.Gosched()
					active.Add(-1)
					release(g, 1)
				}
			})
		}
		wg.Go(func() {
			for i := range rounds {
				g.SetLimit(1 + i%most)
				runtime.Gosched()
			}
			g.SetLimit(most)
		})
		wg.Wait()
		if peak.Load() > most {
			t.Errorf("%d calls in flight at once, the highest limit %d", peak.Load(), most)
		}
		wantLoad(t, g, 0, 0)
	})
}
