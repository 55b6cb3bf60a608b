package queue_test

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/queue"
	"go.uber.org/goleak"
)

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
