package queue_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/herdsafe/backoff/internal/queue"
)

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
