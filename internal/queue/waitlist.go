package queue

// waiter is a caller queued for a slot.
type waiter struct {
	next, prev *waiter
	// ready is closed when the waiter is handed a slot; closing never
	// blocks, so a release never waits on a caller that has gone.
	ready   chan struct{}
	granted bool // handed a slot; guarded by the Queue's mu
}

// waitList is a list of waiters, oldest first, from which a waiter that
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
