package breaker

import (
	"sync/atomic"
	"time"
)

// countWindow is the outcome of the last calls: one bit a call, set for a
// failure, in a ring the calls fill in turn, and with the slow-call rule a
// second ring, a bit set for a slow call. It takes no lock: a writer
// claims its place with an atomic counter and flips its bits atomically.
// Under concurrent use the counts it gives are those of the calls whose
// writes have landed, which may trail the counter by the calls in flight.
type countWindow struct {
	next   atomic.Uint64 // calls recorded, and so the next place
	size   uint64
	failed bitRing
	slow   bitRing // empty without the slow-call rule
}

// bitRing is one bit a place of a countWindow, and the count of bits set.
type bitRing struct {
	set  atomic.Int64
	bits []atomic.Uint64
}

func newCountWindow(size int, slow bool) *countWindow {
	w := &countWindow{size: uint64(size)}
	w.failed.bits = make([]atomic.Uint64, (size+63)/64)
	if slow {
		w.slow.bits = make([]atomic.Uint64, (size+63)/64)
	}
	return w
}

// add records a call that failed or not, and was slow or not.
func (w *countWindow) add(failed, slow bool) {
	i := (w.next.Add(1) - 1) % w.size
	w.failed.put(i, failed)
	if w.slow.bits != nil {
		w.slow.put(i, slow)
	}
}

// put sets or clears the bit of place i.
func (r *bitRing) put(i uint64, on bool) {
	word, bit := &r.bits[i/64], uint64(1)<<(i%64)
	switch {
	case on:
		if word.Or(bit)&bit == 0 {
			r.set.Add(1)
		}
	case word.Load()&bit != 0: // clearing an old bit
		if word.And(^bit)&bit != 0 {
			r.set.Add(-1)
		}
	}
}

// counts returns the calls in the window, and the failures and the slow
// calls among them.
func (w *countWindow) counts() tally {
	return tally{
		calls:    min(w.next.Load(), w.size),
		failures: uint64(max(w.failed.set.Load(), 0)),
		slow:     uint64(max(w.slow.set.Load(), 0)),
	}
}

// tally is what a window counts.
type tally struct {
	calls, failures, slow uint64
}

// buckets is the number of buckets of a timeWindow.
const buckets = 10

// timeWindow counts the calls of the last period in buckets of
// period/buckets each, slot i holding the buckets i, i+buckets, ... since
// start. It takes no lock: the first writer of a new bucket claims its
// slot by swapping the slot's bucket number, then zeroes its counts; a call
// recorded by another writer in between is lost.
type timeWindow struct {
	start time.Time
	width time.Duration
	slots [buckets]slot
}

type slot struct {
	bucket atomic.Int64 // the bucket the counts are of, -1 for none
	calls  atomic.Uint64
	bad    atomic.Uint64
	slow   atomic.Uint64
}

func newTimeWindow(start time.Time, period time.Duration) *timeWindow {
	w := &timeWindow{start: start, width: period / buckets}
	for i := range w.slots {
		w.slots[i].bucket.Store(-1)
	}
	return w
}

// bucket is the number of the bucket now falls in.
func (w *timeWindow) bucket(now time.Time) int64 {
	return max(int64(now.Sub(w.start)/w.width), 0)
}

// add records a call that ended at now, failed or not, slow or not.
func (w *timeWindow) add(now time.Time, failed, slow bool) {
	n := w.bucket(now)
	s := &w.slots[n%buckets]
	for {
		b := s.bucket.Load()
		if b == n {
			break
		}
		if b > n { // the slot moved on to a later bucket: too late to count
			return
		}
		if s.bucket.CompareAndSwap(b, n) {
			s.calls.Store(0)
			s.bad.Store(0)
			s.slow.Store(0)
			break
		}
	}
	s.calls.Add(1)
	if failed {
		s.bad.Add(1)
	}
	if slow {
		s.slow.Add(1)
	}
}

// counts returns the calls recorded in the window that ends at now, and
// the failures and the slow calls among them.
func (w *timeWindow) counts(now time.Time) tally {
	var t tally
	n := w.bucket(now)
	for b := max(n-buckets+1, 0); b <= n; b++ {
		s := &w.slots[b%buckets]
		if s.bucket.Load() == b {
			t.calls += s.calls.Load()
			t.failures += s.bad.Load()
			t.slow += s.slow.Load()
		}
	}
	t.failures, t.slow = min(t.failures, t.calls), min(t.slow, t.calls)
	return t
}

// trips reports whether the calls t counts trip the breaker: at least
// minCalls of them, and failures at the failure rate, or slow calls at
// the slow-call rate.
func (c *config) trips(t tally) bool {
	if t.calls < c.minCalls || t.calls == 0 {
		return false
	}
	n := float64(t.calls)
	return float64(t.failures)/n >= c.rate || c.slow.after != 0 && float64(t.slow)/n >= c.slow.rate
}
