// Package queue admits calls up to a limit of calls in flight, and holds a
// bounded queue of callers waiting, in arrival order, for a slot: the
// admission that bulkhead.Bulkhead and limiter.Limiter share, the one with
// a fixed limit, the other with a limit that moves.
//
// A slot freed while callers wait passes to the one that has waited
// longest, without being given back, so that a newcomer cannot take it
// first; a limit that grows admits the oldest waiters into the slots it
// makes. A waiter gives up when its context is done or its maximum wait,
// timed on the guard's clock, passes. The path of a call admitted with a
// slot free and nobody queued, and of its release, is a compare-and-swap
// on one word: no lock, no allocation, no clock.
package queue

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
)

// Queue is the state of the admission: the calls in flight, the callers
// queued, and the limit. Make it ready with [Queue.Init] in the guard that
// holds it, and share it: it is safe for concurrent use. Its zero value
// has a limit of 0, and admits nobody.
//
// It starts no goroutine and calls no function but the clock's Timer,
// which it calls only for a caller about to queue with a maximum wait,
// before it queues and without its lock held: a Timer that blocks holds up
// that caller alone, and one that panics panics in that caller, which then
// holds neither a slot nor a place in the queue.
type Queue struct {
	// state holds the calls in flight in its low 32 bits and the callers
	// queued in its high 32 bits, so that one compare-and-swap admits a
	// call only if it is under the limit and nobody is queued. Callers
	// queue only when the limit is reached, and a freed slot passes to a
	// queued caller without being given back, so while anyone is queued
	// the limit is reached (or, just after it shrank, exceeded).
	state atomic.Uint64
	limit atomic.Uint64 // below 1<<32

	size       uint64 // the most callers queued at once
	maxWait    time.Duration
	clock      clock.Clock
	name       string // the guard's, which starts the messages of its context errors
	refused    error  // the refusal of a caller that finds no slot and no queue
	full       error  // the refusal of a caller that finds the queue full too
	timedOut   error  // the refusal of a caller that waited maxWait
	unbalanced string // the panic of a release too many

	mu      sync.Mutex // guards waiters, and the queued count of state against increase
	waiters waitList
}

const (
	oneWaiter  uint64 = 1 << 32
	lessWaiter        = ^(oneWaiter - 1) // added to state, it takes one waiter away
	slotMask          = oneWaiter - 1
)

// Config is what a guard tells its Queue.
type Config struct {
	Settings
	// Limit is the most calls in flight at once, at most math.MaxInt32;
	// 0 admits nobody, as a guard that cannot be used must not.
	Limit int
	// Clock times the maximum wait.
	Clock clock.Clock
	// Name is the guard's package name, such as "bulkhead": the messages
	// of the errors of callers whose context ended start with it.
	Name string
	// Refused is the guard's sentinel, such as bulkhead.ErrBulkheadFull:
	// the refusal of a caller that finds the limit reached and no queue,
	// and what the refusals of a full queue and of a maximum wait reached
	// match with errors.Is.
	Refused error
	// Unbalanced is the panic of a release with no call in flight: the
	// guard's Record called once too often.
	Unbalanced string
}

// Init makes q ready with cfg, before it is shared. cfg is taken as it is:
// the guard checks its settings first (see [Settings.Check]).
func (q *Queue) Init(cfg Config) {
	q.limit.Store(uint64(cfg.Limit))
	q.size = uint64(cfg.Size)
	q.maxWait = cfg.MaxWait
	q.clock = cfg.Clock
	q.name = cfg.Name
	q.refused = cfg.Refused
	q.unbalanced = cfg.Unbalanced
	q.full = fmt.Errorf("%w, and so is its queue", cfg.Refused)
	if cfg.MaxWait > 0 {
		q.timedOut = fmt.Errorf("%w: not admitted within the maximum wait of %v", cfg.Refused, cfg.MaxWait)
	}
}

// Limit returns the most calls in flight at once, as it now stands.
func (q *Queue) Limit() uint64 { return q.limit.Load() }

// Load returns the calls in flight and the callers queued, read together
// at one instant. It takes no lock.
func (q *Queue) Load() (inFlight, queued int) {
	s := q.state.Load()
	return int(s & slotMask), int(s >> 32)
}

// TryAcquire takes a slot if fewer than limit calls are in flight and
// nobody is queued, and returns the calls then in flight. limit is the
// Queue's [Queue.Limit], or a share of it for calls that may not take all
// of it; above the Queue's limit, it admits calls beyond that. It is the
// path of an admitted call: a compare-and-swap, and no lock.
func (q *Queue) TryAcquire(limit uint64) (uint64, bool) {
	for {
		s := q.state.Load()
		// s < limit says both: limit < 1<<32, so a queued caller makes s
		// larger than any limit.
		if s >= limit {
			return 0, false
		}
		if q.state.CompareAndSwap(s, s+1) {
			return s + 1, true
		}
	}
}

// Release frees the slot of a call that ends, or hands it to the caller
// that has waited longest if the calls in flight are within the limit. It
// panics with Config.Unbalanced, and changes nothing, if no call is in
// flight: a release too many, a guard's Record called once too often.
// Nobody queued, it is a compare-and-swap, and no lock.
func (q *Queue) Release() {
	for {
		s := q.state.Load()
		switch {
		case s >= oneWaiter:
			// Someone is queued, so a call is in flight: the limit is
			// reached, at least 1.
			if s&slotMask <= q.limit.Load() {
				q.handOff()
				return
			}
		case s == 0:
			q.tooMany()
		}
		if q.state.CompareAndSwap(s, s-1) {
			return
		}
	}
}

// tooMany panics for a release with no call in flight.
func (q *Queue) tooMany() {
	panic(cmp.Or(q.unbalanced, "queue: Release without a call in flight")) // the words of a zero Queue
}

// SetLimit makes n, at most math.MaxInt32, the limit, and admits the oldest
// waiters into the slots a higher limit makes. A lower limit takes no slot
// back: the calls in flight above it keep theirs, and the slots they free
// are not handed on until the calls in flight are within it. A higher
// limit takes the lock even when nobody seems queued, so that a caller
// queueing under the old limit as it changes is admitted too.
func (q *Queue) SetLimit(n int) {
	if uint64(n) > q.limit.Swap(uint64(n)) {
		q.admitWaiters()
	}
}

// Acquire is the path of a caller that [Queue.TryAcquire] did not admit,
// with a ctx that is not nil: it admits the caller if a slot is free and
// nobody is queued, or queues it if the queue has room, or refuses it. A
// queued caller waits, behind those queued before it, until it is handed
// a slot, the maximum wait passes, or ctx is done.
//
// It returns nil for a caller admitted: it holds a slot, to give back with
// [Queue.Release]. A caller refused gets an error that matches the
// guard's sentinel (Config.Refused): that sentinel itself without a
// queue, another with a full queue or the maximum wait reached. A caller
// whose ctx is done, before it asks or while it waits, gets an error of
// its own ([Canceled], which [GaveUp] tells) and no slot: a slot handed to
// it as its ctx ended goes on to the next caller queued.
func (q *Queue) Acquire(ctx context.Context) error {
	if ctx.Err() != nil {
		return Canceled(q.name, ctx)
	}
	if q.size == 0 {
		if _, ok := q.TryAcquire(q.limit.Load()); ok {
			return nil
		}
		return cmp.Or(q.refused, errZero)
	}
	// The timer is made before the caller queues, outside the lock: a test
	// that sees the caller queued may advance a mock clock past it.
	var timer *clock.Timer
	if q.maxWait > 0 {
		timer = q.clock.Timer(q.maxWait)
	}
	w, err := q.enqueue()
	if w == nil {
		if timer != nil {
			timer.Stop()
		}
		return err
	}
	return q.await(ctx, w, timer)
}

// enqueue takes a free slot, or queues the caller if the queue has room,
// or refuses: it returns (nil, nil) for a slot taken, a waiter for a caller
// queued, and (nil, err) for a refusal.
func (q *Queue) enqueue() (*waiter, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		s := q.state.Load()
		switch {
		case s < q.limit.Load():
			if q.state.CompareAndSwap(s, s+1) {
				return nil, nil
			}
		case s>>32 >= q.size:
			return nil, q.full
		default:
			// The swap fails if a slot was freed since the load: the caller
			// then takes it on the next turn, rather than wait for a slot
			// nobody will hand it.
			if q.state.CompareAndSwap(s, s+oneWaiter) {
				w := &waiter{ready: make(chan struct{})}
				q.waiters.push(w)
				return w, nil
			}
		}
	}
}

// await waits until the queued w is handed a slot, ctx is done or timer
// fires, and settles the outcome: a slot kept only for a caller whose ctx
// is alive.
func (q *Queue) await(ctx context.Context, w *waiter, timer *clock.Timer) error {
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
		granted = q.leave(w)
	case <-expired:
		granted = q.leave(w)
	}
	switch {
	case granted && ctx.Err() == nil:
		return nil // handed a slot, even as the maximum wait ran out
	case granted:
		q.Release() // to the next waiter
	}
	if ctx.Err() != nil {
		return Canceled(q.name, ctx)
	}
	return q.timedOut
}

// leave takes w out of the queue, and reports whether it was handed a slot
// first: then it is no longer queued, and holds the slot.
func (q *Queue) leave(w *waiter) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if w.granted {
		return true
	}
	q.waiters.remove(w)
	q.state.Add(lessWaiter)
	return false
}

// handOff passes a freed slot to the oldest waiter, or frees it if the
// waiters left before the lock was taken.
func (q *Queue) handOff() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if w := q.waiters.pop(); w != nil {
		q.state.Add(lessWaiter) // the slot stays taken: it is w's now
		w.granted = true
		close(w.ready)
		return
	}
	// Nobody is queued, and nobody can queue while the lock is held.
	for {
		s := q.state.Load()
		if s&slotMask == 0 {
			q.tooMany()
		}
		if q.state.CompareAndSwap(s, s-1) {
			return
		}
	}
}

// admitWaiters hands the oldest waiters slots while the calls in flight
// are under the limit: the slots a higher limit makes.
func (q *Queue) admitWaiters() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.waiters.head != nil {
		s := q.state.Load()
		if s&slotMask >= q.limit.Load() {
			return
		}
		// One more in flight, one fewer queued.
		if !q.state.CompareAndSwap(s, s+1+lessWaiter) {
			continue
		}
		w := q.waiters.pop()
		w.granted = true
		close(w.ready)
	}
}
