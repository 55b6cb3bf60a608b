package limiter

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"
)

// waiter is a caller queued to be admitted.
type waiter struct {
	next, prev *waiter
	// ready is closed when the waiter is admitted; closing never blocks,
	// so a release never waits on a caller that has gone.
	ready   chan struct{}
	granted bool // admitted; guarded by the Limiter's qmu
}

// waitList is a queue of waiters, oldest first, from which a waiter that
// gives up leaves in constant time.
type waitList struct{ head, tail *waiter }

func (q *waitList) push(w *waiter) {
	w.prev = q.tail
	if q.tail == nil {
		q.head = w
	} else {
		q.tail.next = w
	}
	q.tail = w
}

func (q *waitList) remove(w *waiter) {
	if w.prev == nil {
		q.head = w.next
	} else {
		w.prev.next = w.next
	}
	if w.next == nil {
		q.tail = w.prev
	} else {
		w.next.prev = w.prev
	}
	w.next, w.prev = nil, nil
}

// pop removes and returns the oldest waiter, or nil.
func (q *waitList) pop() *waiter {
	w := q.head
	if w != nil {
		q.remove(w)
	}
	return w
}

// enqueue admits the caller if it is under the limit, or queues it if the
// queue has room, or refuses it: it returns (nil, nil) for a caller
// admitted, a waiter for a caller queued, and (nil, err) for a refusal.
func (l *Limiter) enqueue(i int) (*waiter, error) {
	l.qmu.Lock()
	defer l.qmu.Unlock()
	for {
		s := l.state.Load()
		switch {
		case s < l.limits[i].Load():
			if l.state.CompareAndSwap(s, s+1) {
				l.notePeak(s + 1)
				return nil, nil
			}
		case s>>32 >= uint64(l.cfg.queue):
			l.refused[i].Add(1)
			return nil, errWithFullQueue
		default:
			// The swap fails if a place was freed since the load: the
			// caller then takes it on the next turn, rather than wait for
			// a place nobody will hand it.
			if l.state.CompareAndSwap(s, s+oneWaiter) {
				w := &waiter{ready: make(chan struct{})}
				l.waiters.push(w)
				return w, nil
			}
		}
	}
}

// await waits until the queued w is admitted, ctx is done or timer fires,
// and settles the outcome: a place kept only for a caller whose ctx is
// alive.
func (l *Limiter) await(ctx context.Context, w *waiter, timer *clock.Timer, i int) error {
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
		granted = l.leave(w)
	case <-expired:
		granted = l.leave(w)
	}
	switch {
	case granted && ctx.Err() == nil:
		return nil // admitted, even as the maximum wait ran out
	case granted:
		l.release() // to the next waiter
	}
	if ctx.Err() != nil {
		l.canceled.Add(1)
		return canceled(ctx)
	}
	l.refused[i].Add(1)
	return l.timedOut
}

// leave takes w out of the queue, and reports whether it was admitted
// first: then it is no longer queued, and holds a place.
func (l *Limiter) leave(w *waiter) bool {
	l.qmu.Lock()
	defer l.qmu.Unlock()
	if w.granted {
		return true
	}
	l.waiters.remove(w)
	l.state.Add(lessWaiter)
	return false
}

// handOff passes a freed place to the oldest waiter, or frees it if the
// waiters left before the lock was taken.
func (l *Limiter) handOff() {
	l.qmu.Lock()
	defer l.qmu.Unlock()
	if w := l.waiters.pop(); w != nil {
		l.state.Add(lessWaiter) // the place stays taken: it is w's now
		w.granted = true
		close(w.ready)
		return
	}
	// Nobody is queued, and nobody can queue while the lock is held.
	for {
		s := l.state.Load()
		if s&slotMask == 0 {
			panic(errUnbalanced)
		}
		if l.state.CompareAndSwap(s, s-1) {
			return
		}
	}
}

// admitWaiters admits the oldest waiters while the calls in flight are
// under the limit: the places a higher limit makes.
func (l *Limiter) admitWaiters() {
	l.qmu.Lock()
	defer l.qmu.Unlock()
	for l.waiters.head != nil {
		s := l.state.Load()
		if s&slotMask >= l.limits[criticalIndex].Load() {
			return
		}
		// One more in flight, one fewer queued.
		if !l.state.CompareAndSwap(s, s+1+lessWaiter) {
			continue
		}
		w := l.waiters.pop()
		w.granted = true
		close(w.ready)
	}
}
