package bulkhead_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/bulkhead"
	"go.uber.org/goleak"
)

// result is how a queued caller's Allow returned.
type result struct {
	id  int
	err error
}

// queueCaller starts a caller that asks b for a slot with ctx and reports
// on out.
func queueCaller(b *bulkhead.Bulkhead, ctx context.Context, id int, out chan<- result) {
	go func() { out <- result{id, allow(b, ctx)} }()
}

// next returns the result of a caller that has returned, failing the test
// if none has: a blocking receive would let a synctest bubble's virtual
// time run on, and fire timers the test means to drive.
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

// noResult fails the test if a caller has returned.
func noResult(t *testing.T, out <-chan result) {
	t.Helper()
	select {
	case r := <-out:
		t.Fatalf("caller %d returned (%v), want it still waiting", r.id, r.err)
	default:
	}
}

// A freed slot goes to the caller that has waited longest.
func TestQueueIsFIFO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 6
		b := bulkhead.New(1, bulkhead.WithQueue(n))
		ctx := context.Background()
		fill(t, b, ctx, 1)
		out := make(chan result, n)
		for i := range n {
			queueCaller(b, ctx, i, out)
			synctest.Wait() // i is queued before i+1 arrives
		}
		wantStats(t, b, bulkhead.Stats{Capacity: 1, InFlight: 1, Queued: n})
		for i := range n {
			noResult(t, out)
			record(b) // frees the slot of the last caller admitted
			synctest.Wait()
			r := next(t, out)
			if r.err != nil || r.id != i {
				t.Fatalf("release %d admitted caller %d (%v), want caller %d", i+1, r.id, r.err, i)
			}
			wantStats(t, b, bulkhead.Stats{Capacity: 1, InFlight: 1, Queued: n - 1 - i})
		}
		record(b)
		wantStats(t, b, bulkhead.Stats{Capacity: 1})
	})
}

// A caller that arrives just as a slot is handed to a waiter does not take
// it: it queues behind.
func TestNewcomerDoesNotBargeAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bulkhead.New(1, bulkhead.WithQueue(2))
		ctx := context.Background()
		fill(t, b, ctx, 1)
		out := make(chan result, 2)
		queueCaller(b, ctx, 1, out)
		synctest.Wait()
		record(b)                   // handed to caller 1, which has not run yet
		queueCaller(b, ctx, 2, out) // arrives before caller 1 wakes
		synctest.Wait()
		if r := next(t, out); r.id != 1 || r.err != nil {
			t.Fatalf("caller %d admitted (%v), want caller 1", r.id, r.err)
		}
		noResult(t, out)
		wantStats(t, b, bulkhead.Stats{Capacity: 1, InFlight: 1, Queued: 1})
		record(b)
		synctest.Wait()
		if r := next(t, out); r.id != 2 || r.err != nil {
			t.Fatalf("caller %d admitted (%v), want caller 2", r.id, r.err)
		}
		record(b)
	})
}

// A caller that finds the queue full is refused at once.
func TestFullQueueRefuses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bulkhead.New(2, bulkhead.WithQueue(2))
		ctx := context.Background()
		fill(t, b, ctx, 2)
		out := make(chan result, 2)
		queueCaller(b, ctx, 1, out)
		queueCaller(b, ctx, 2, out)
		synctest.Wait()
		err := allow(b, ctx)
		if !errors.Is(err, bulkhead.ErrBulkheadFull) {
			t.Fatalf("Allow with the queue full = %v, want ErrBulkheadFull", err)
		}
		wantStats(t, b, bulkhead.Stats{Capacity: 2, InFlight: 2, Queued: 2, Refused: 1})
		for range 4 {
			record(b)
		}
		synctest.Wait()
		for range 2 {
			if r := next(t, out); r.err != nil {
				t.Errorf("caller %d: %v", r.id, r.err)
			}
		}
		wantStats(t, b, bulkhead.Stats{Capacity: 2, Refused: 1})
	})
}

// The maximum wait is timed by the bulkhead's clock: a mock clock drives
// it, to the nanosecond.
func TestMaxWaitOnMockClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const wait = 3 * time.Second
		mock := clock.NewMock()
		b := bulkhead.New(1, bulkhead.WithQueue(1), bulkhead.WithMaxWait(wait), bulkhead.WithClock(mock))
		ctx := context.Background()
		fill(t, b, ctx, 1)
		out := make(chan result, 1)
		queueCaller(b, ctx, 1, out)
		synctest.Wait()
		mock.Add(wait - time.Nanosecond)
		synctest.Wait()
		noResult(t, out)
		mock.Add(time.Nanosecond)
		synctest.Wait()
		r := next(t, out)
		if !errors.Is(r.err, bulkhead.ErrBulkheadFull) {
			t.Fatalf("after the maximum wait: %v, want ErrBulkheadFull", r.err)
		}
		wantStats(t, b, bulkhead.Stats{Capacity: 1, InFlight: 1, Refused: 1})
		record(b)
		wantStats(t, b, bulkhead.Stats{Capacity: 1, Refused: 1}) // nobody left holding the slot
	})
}

// A caller handed a slot within its maximum wait is admitted, and its
// timer stopped.
func TestSlotWithinMaxWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mock := clock.NewMock()
		b := bulkhead.New(1, bulkhead.WithQueue(1), bulkhead.WithMaxWait(time.Second), bulkhead.WithClock(mock))
		ctx := context.Background()
		fill(t, b, ctx, 1)
		out := make(chan result, 1)
		queueCaller(b, ctx, 1, out)
		synctest.Wait()
		mock.Add(time.Second / 2)
		record(b)
		synctest.Wait()
		if r := next(t, out); r.err != nil {
			t.Fatalf("handed a slot within the wait: %v", r.err)
		}
		mock.Add(time.Hour) // the stopped timer must not fire into anything
		wantStats(t, b, bulkhead.Stats{Capacity: 1, InFlight: 1})
		record(b)
	})
}

// A slot handed over as the maximum wait runs out is kept: the caller's
// context is alive, and the slot is free for it.
func TestSlotAsMaxWaitRunsOut(t *testing.T) {
	for range 20 { // the waiter's select sees both at once, and picks either
		synctest.Test(t, func(t *testing.T) {
			mock := clock.NewMock()
			b := bulkhead.New(1, bulkhead.WithQueue(1), bulkhead.WithMaxWait(time.Second), bulkhead.WithClock(mock))
			ctx := context.Background()
			fill(t, b, ctx, 1)
			out := make(chan result, 1)
			queueCaller(b, ctx, 1, out)
			synctest.Wait()
			record(b)             // handed over...
			mock.Add(time.Second) // ...and the timer fires before the waiter runs
			synctest.Wait()
			if r := next(t, out); r.err != nil {
				t.Fatalf("a slot handed over as the wait ran out: %v, want it kept", r.err)
			}
			wantStats(t, b, bulkhead.Stats{Capacity: 1, InFlight: 1})
			record(b)
		})
	}
}

// The default clock is the time package's: in a synctest bubble the wait
// is virtual, and exact.
func TestMaxWaitOnDefaultClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const wait = 250 * time.Millisecond
		b := bulkhead.New(1, bulkhead.WithQueue(1), bulkhead.WithMaxWait(wait))
		ctx := context.Background()
		fill(t, b, ctx, 1)
		start := time.Now()
		if err := allow(b, ctx); !errors.Is(err, bulkhead.ErrBulkheadFull) {
			t.Fatalf("Allow = %v, want ErrBulkheadFull", err)
		}
		if waited := time.Since(start); waited != wait {
			t.Errorf("refused after %v, want %v", waited, wait)
		}
		record(b)
	})
}

// A caller whose context ends while it waits gets the context's error,
// leaves the queue and holds no slot.
func TestContextEndsWhileQueued(t *testing.T) {
	cause := errors.New("client went away")
	cases := []struct {
		name string
		ctx  func() (context.Context, func())
		want []error
	}{
		{"cancel", func() (context.Context, func()) {
			ctx, cancel := context.WithCancel(context.Background())
			return ctx, cancel
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
				b := bulkhead.New(1, bulkhead.WithQueue(2), bulkhead.WithMaxWait(time.Hour))
				fill(t, b, context.Background(), 1)
				out := make(chan result, 2)
				ctx, end := c.ctx()
				queueCaller(b, ctx, 1, out)
				queueCaller(b, context.Background(), 2, out)
				synctest.Wait()
				end()
				synctest.Wait()
				r := <-out // blocking: for a deadline, virtual time runs to it
				if r.id != 1 {
					t.Fatalf("caller %d returned first (%v), want caller 1", r.id, r.err)
				}
				checkContextError(t, r.err, c.want...)
				wantStats(t, b, bulkhead.Stats{Capacity: 1, InFlight: 1, Queued: 1, Canceled: 1})
				record(b) // to caller 2, not to the one that left
				synctest.Wait()
				if r := next(t, out); r.id != 2 || r.err != nil {
					t.Fatalf("caller %d: %v, want caller 2 admitted", r.id, r.err)
				}
				record(b)
				wantStats(t, b, bulkhead.Stats{Capacity: 1, Canceled: 1})
			})
		})
	}
}

// A slot handed to a caller as its context ends goes on to the next
// caller: the one that gave up holds none.
func TestSlotHandedAsContextEnds(t *testing.T) {
	for range 50 { // the waiter wakes by its context or by the slot: either
		synctest.Test(t, func(t *testing.T) {
			b := bulkhead.New(1, bulkhead.WithQueue(2))
			fill(t, b, context.Background(), 1)
			out := make(chan result, 2)
			ctx, cancel := context.WithCancel(context.Background())
			queueCaller(b, ctx, 1, out)
			synctest.Wait()
			queueCaller(b, context.Background(), 2, out)
			synctest.Wait()
			// Caller 1's context ends, and a slot is freed before or after
			// it wakes: handed to it, or to caller 2 if it left first.
			// Either way caller 1 must not keep it.
			cancel()
			record(b)
			synctest.Wait()
			got := map[int]error{}
			for range 2 {
				r := next(t, out)
				got[r.id] = r.err
			}
			checkContextError(t, got[1], context.Canceled)
			if got[2] != nil {
				t.Errorf("caller 2: %v, want the slot caller 1 gave up", got[2])
			}
			wantStats(t, b, bulkhead.Stats{Capacity: 1, InFlight: 1, Canceled: 1})
			record(b)
		})
	}
}

// Many callers that give up leave nothing behind: no goroutine, no slot, no
// place in the queue, and a release after them does not block.
func TestManyCallersGiveUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 100
		b := bulkhead.New(2, bulkhead.WithQueue(n), bulkhead.WithMaxWait(time.Hour))
		fill(t, b, context.Background(), 2)
		ctx, cancel := context.WithCancel(context.Background())
		out := make(chan result, n)
		for i := range n {
			queueCaller(b, ctx, i, out)
		}
		synctest.Wait()
		wantStats(t, b, bulkhead.Stats{Capacity: 2, InFlight: 2, Queued: n})
		cancel()
		synctest.Wait()
		for range n {
			checkContextError(t, next(t, out).err, context.Canceled)
		}
		record(b)
		record(b)
		wantStats(t, b, bulkhead.Stats{Capacity: 2, Canceled: n})
		fill(t, b, context.Background(), 2)
		record(b)
		record(b)
	})
}

// The bulkhead starts no goroutine, not even for a queued caller's timer:
// the only goroutines are the callers'.
func TestQueueStartsNoGoroutine(t *testing.T) {
	const n = 8
	for name, c := range map[string]clock.Clock{"mock clock": clock.NewMock(), "wall clock": clock.New()} {
		t.Run(name, func(t *testing.T) {
			b := bulkhead.New(1, bulkhead.WithQueue(n), bulkhead.WithMaxWait(time.Hour), bulkhead.WithClock(c))
			fill(t, b, context.Background(), 1)
			goleak.VerifyNone(t) // the goroutines of the tests before have ended
			base := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() { _ = allow(b, ctx) })
			}
			for b.Stats().Queued < n {
				runtime.Gosched()
			}
			if got := runtime.NumGoroutine(); got != base+n {
				t.Errorf("%d goroutines with %d callers queued, want %d", got, n, base+n)
			}
			cancel()
			wg.Wait()
			record(b)
			wantStats(t, b, bulkhead.Stats{Capacity: 1, Canceled: n})
		})
	}
}

// Under load with a queue and cancellations, every slot and every place in
// the queue comes back, and no call is admitted beyond the capacity.
func TestConcurrentQueueing(t *testing.T) {
	const capacity, callers, rounds = 2, 12, 200
	b := bulkhead.New(capacity, bulkhead.WithQueue(callers))
	var mu sync.Mutex
	active, peak, admitted, gaveUp, early := 0, 0, 0, 0, 0
	// A caller queued while a slot is free would wait for a release that
	// may never come: Stats, read from one word, must never show it.
	done := make(chan struct{})
	var watcher sync.WaitGroup
	watcher.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			if s := b.Stats(); s.Queued > 0 && s.InFlight < capacity {
				t.Errorf("Stats() = %+v: callers queued while a slot is free", s)
				return
			}
			runtime.Gosched()
		}
	})
	var wg sync.WaitGroup
	for g := range callers {
		wg.Go(func() {
			for i := range rounds {
				ctx, cancel := context.WithCancel(context.Background())
				if (g+i)%5 == 0 {
					cancel() // some give up at once, others while queued
					mu.Lock()
					early++ // refused by Run before the bulkhead is asked
					mu.Unlock()
				} else if (g+i)%7 == 0 {
					go cancel()
				}
				err := b.Run(ctx, func(context.Context) error {
					mu.Lock()
					active++
					peak = max(peak, active)
					admitted++
					mu.Unlock()
					runtime.Gosched()
					mu.Lock()
					active--
					mu.Unlock()
					return nil
				})
				cancel()
				switch {
				case err == nil:
				case errors.Is(err, context.Canceled):
					mu.Lock()
					gaveUp++
					mu.Unlock()
				default:
					t.Error(err) // the queue has room for everyone
				}
			}
		})
	}
	wg.Wait()
	close(done)
	watcher.Wait()
	if peak > capacity {
		t.Errorf("%d calls in flight at once, capacity %d", peak, capacity)
	}
	if admitted+gaveUp != callers*rounds {
		t.Errorf("%d admitted + %d gave up, want %d calls", admitted, gaveUp, callers*rounds)
	}
	wantStats(t, b, bulkhead.Stats{Capacity: capacity, Canceled: uint64(gaveUp - early)})
}
