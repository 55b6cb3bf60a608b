package bulkhead

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"
)

// waiter is a caller queued for a slot.
type waiter struct {
	next, prev *waiter
	// ready is closed when the waiter is handed a slot; closing never
	// blocks, so a release never waits on a caller that has gone.
	ready   chan struct{}
	granted bool // handed a slot; guarded by the bulkhead's mu
}

// waitList is a queue of waiters, oldest first, from which a waiter that
// gives up leaves in constant time.
type waitList struct{ head, tail *waiter }

func (l *waitList) push(w *waiter) {
	w.prev = l.tail
	if l.tail == nil {
		l.head = w
	} else {
		l.tail.next = w
	}
	l.tail = w
}

func (l *waitList) remove(w *waiter) {
	if w.prev == nil {
		l.head = w.next
	} else {
		w.prev.next = w.next
	}
	if w.next == nil {
		l.tail = w.prev
	} else {
		w.next.prev = w.prev
	}
	w.next, w.prev = nil, nil
}

// pop removes and returns the oldest waiter, or nil.
func (l *waitList) pop() *waiter {
	w := l.head
	if w != nil {
		l.remove(w)
	}
	return w
}

// enqueue takes a free slot, or queues the caller if the queue has room,
// or refuses: it returns (nil, nil) for a slot taken, a waiter for a caller
// queued, and (nil, err) for a refusal.
func (b *Bulkhead) enqueue() (*waiter, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		s := b.state.Load()
		switch {
		case s < b.limit:
			if b.state.CompareAndSwap(s, s+1) {
				return nil, nil
			}
		case s>>32 >= b.queue:
			b.refused.Add(1)
			return nil, errWithFullQueue
		default:
			// The swap fails if a slot was freed since the load: the caller
			// then takes it on the next turn, rather than wait for a slot
			// nobody will hand it.
			if b.state.CompareAndSwap(s, s+oneWaiter) {
				w := &waiter{ready: make(chan struct{})}
				b.waiters.push(w)
				return w, nil
			}
		}
	}
}

// await waits until the queued w is handed a slot, ctx is done or timer
// fires, and settles the outcome: a slot kept only for a caller whose ctx
// is alive.
func (b *Bulkhead) await(ctx context.Context, w *waiter, timer *clock.Timer) error {
	var expired <-chan time.Time
	if timer != nil {
		expired = timer.C
		defer timer.Stop()
	}
	granted := false
	select {
	case <-w.ready:
		granted = true
	case <-ctx.Done():
		granted = b.leave(w)
	case <-expired:
		granted = b.leave(w)
	}
	switch {
	case granted && ctx.Err() == nil:
		return nil // handed a slot, even as the maximum wait ran out
	case granted:
		b.release() // to the next waiter
	}
	if ctx.Err() != nil {
		b.canceled.Add(1)
		return canceled(ctx)
	}
	b.refused.Add(1)
	return b.timedOut
}

// leave takes w out of the queue, and reports whether it was handed a slot
// first: then it is no longer queued, and holds the slot.
func (b *Bulkhead) leave(w *waiter) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if w.granted {
		return true
	}
	b.waiters.remove(w)
	b.state.Add(lessWaiter)
	return false
}

// handOff passes a freed slot to the oldest waiter, or frees it if the
// waiters left before the lock was taken.
func (b *Bulkhead) handOff() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if w := b.waiters.pop(); w != nil {
		b.state.Add(lessWaiter) // the slot stays taken: it is w's now
		w.granted = true
		close(w.ready)
		return
	}
	// Nobody is queued, and nobody can queue while the lock is held.
	for {
		s := b.state.Load()
		if s == 0 {
			panic(errUnbalanced)
		}
		if b.state.CompareAndSwap(s, s-1) {
			return
		}
	}
}
