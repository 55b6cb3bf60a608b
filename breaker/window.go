package breaker

import (
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/internal/window"
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

// The kinds of event the window of WithFailureRateOver counts, a
// window.Window on the breaker's clock.
const (
	timedCalls    = 0
	timedFailures = 1
	timedSlow     = 2
)

// newTimeWindow returns the window of the calls of the last period on clk,
// empty.
func newTimeWindow(clk clock.Clock, period time.Duration) *window.Window {
	w := new(window.Window)
	w.Init(clk, period, 0)
	return w
}

// addTimed records a call in w, failed or not, slow or not, and returns
// what the window holds once the call could trip the breaker (it failed
// or was slow), or a zero tally if it could not. The slow calls are read
// only when countSlow says the slow-call rule is on.
func addTimed(w *window.Window, failed, slow, countSlow bool) tally {
	e := w.Add(w.Epoch(), timedCalls)
	if failed {
		w.Add(e, timedFailures)
	}
	if slow {
		w.Add(e, timedSlow)
	}
	if !failed && !slow {
		return tally{}
	}
	calls, failures := w.Counts(e)
	t := tally{calls: calls, failures: min(failures, calls)}
	if countSlow {
		t.slow = min(w.Count(e, timedSlow), calls)
	}
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
