package herd

import "time"

// kind is what happens at an event.
type kind uint8

const (
	wake       kind = iota // a client starts its next attempt
	readArrive             // OCC: a read reaches the server
	readReply              // OCC: the read's answer reaches the client
	callArrive             // a call (an OCC write, a connection) reaches the server
	callReply              // the call's answer reaches the client
)

// event is one message or timer firing at a virtual instant.
type event struct {
	at      time.Duration
	seq     uint64 // order of scheduling: breaks ties, so runs repeat
	version uint64 // OCC: the version read, or carried by a write
	client  int32
	kind    kind
	ok      bool // callReply: whether the call succeeded
}

// before orders events by time, then by the order they were scheduled.
func (e *event) before(f *event) bool {
	if e.at != f.at {
		return e.at < f.at
	}
	return e.seq < f.seq
}

// queue is a binary min-heap of events. It is written out rather than
// built on container/heap so that pushing an event does not allocate.
type queue struct {
	events []event
	seq    uint64
}

func (q *queue) len() int { return len(q.events) }

// push schedules e, stamping its sequence number.
func (q *queue) push(e event) {
	e.seq = q.seq
	q.seq++
	q.events = append(q.events, e)
	h := q.events
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

// pop removes and returns the earliest event. The queue must not be empty.
func (q *queue) pop() event {
	h := q.events
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && h[r].before(&h[l]) {
			m = r
		}
		if !h[m].before(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	q.events = h
	return top
}
