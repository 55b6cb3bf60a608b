package breaker

import (
	"sync/atomic"
	"time"
)

// countWindow is the outcome of the last calls: one bit a call, set for a
// failure, in a ring the calls fill in turn. It takes no lock: a writer
// claims its place with an atomic counter and flips its bit atomically.
// Under concurrent use the counts it gives are those of the calls whose
// writes have landed, which may trail the counter by the calls in flight.
type countWindow struct {
	next atomic.Uint64 // calls recorded, and so the next place
	bad  atomic.Int64  // failure bits set
	bits []atomic.Uint64
	size uint64
}

func newCountWindow(size int) *countWindow {
	return &countWindow{bits: make([]atomic.Uint64, (size+63)/64), size: uint64(size)}
}

// add records a call that failed or not.
func (w *countWindow) add(failed bool) {
	i := (w.next.Add(1) - 1) % w.size
	word, bit := &w.bits[i/64], uint64(1)<<(i%64)
	switch {
	case failed:
		if word.Or(bit)&bit == 0 {
			w.bad.Add(1)
		}
	case word.Load()&bit != 0: // a success over an old failure
		if word.And(^bit)&bit != 0 {
			w.bad.Add(-1)
		}
	}
}

// counts returns the calls in the window and the failures among them.
func (w *countWindow) counts() (calls, failures uint64) {
	return min(w.next.Load(), w.size), uint64(max(w.bad.Load(), 0))
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

// add records a call that ended at now, failed or not.
func (w *timeWindow) add(now time.Time, failed bool) {
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
			break
		}
	}
	s.calls.Add(1)
	if failed {
		s.bad.Add(1)
	}
}

// counts returns the calls recorded in the window that ends at now, and
// the failures among them.
func (w *timeWindow) counts(now time.Time) (calls, failures uint64) {
	n := w.bucket(now)
	for b := max(n-buckets+1, 0); b <= n; b++ {
		s := &w.slots[b%buckets]
		if s.bucket.Load() == b {
			calls += s.calls.Load()
			failures += s.bad.Load()
		}
	}
	return calls, min(failures, calls)
}

// trips reports whether failures of calls reach the rate, with at least
// minCalls calls.
func trips(calls, failures, minCalls uint64, rate float64) bool {
	return calls >= minCalls && calls > 0 && float64(failures)/float64(calls) >= rate
}
