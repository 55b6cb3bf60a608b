package herd

import "time"

// kind is what happens at an event.
type kind uint8

const (
	begin      kind = iota // OCC, Restart: a client starts its retry loop
	readArrive             // OCC: a read reaches the server
	readReply              // OCC: the version read reaches the client, whose write goes out
	callArrive             // a call (an OCC write, a connection) reaches the server
	reply                  // an answer reaches the caller waiting for it
	wakeUp                 // a caller's backoff timer fires

	userBegin // Outage: the fleet starts its next user call (never queued)
)

// event is one message or timer firing at a virtual instant.
type event struct {
	at      time.Duration
	seq     uint64 // order of scheduling: breaks ties, so runs repeat
	version uint64 // OCC: the version read, or carried by a write
	call    int32  // the caller
	kind    kind
	ok      bool // reply: whether the call succeeded
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

// peek returns the earliest event's instant, false if there is none.
func (q *queue) peek() (time.Duration, bool) {
	if len(q.events) == 0 {
		return 0, false
	}
	return q.events[0].at, true
}

// push schedules e, stamping its sequence number. It moves the parents
// that come after e down a level, and writes e once, into the hole left.
func (q *queue) push(e event) {
	e.seq = q.seq
	q.seq++
	q.events = append(q.events, e)
	h := q.events
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

// pop removes and returns the earliest event. The queue must not be empty.
// It moves the earlier child up into the hole at the top until the last
// event, taken out, fits there.
func (q *queue) pop() event {
	h := q.events
	top := h[0]
	last := h[len(h)-1]
	h = h[:len(h)-1]
	q.events = h
	if len(h) == 0 {
		return top
	}
	i := 0
	for {
		m := 2*i + 1
		if m >= len(h) {
			break
		}
		if r := m + 1; r < len(h) && h[r].before(&h[m]) {
			m = r
		}
		if !h[m].before(&last) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = last
	return top
}
