package breaker

import (
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/internal/window"
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

// The kinds of event the window of WithFailureRateOver counts, a
// window.Window on the breaker's clock.
const (
	timedCalls    = 0
	timedFailures = 1
)

// newTimeWindow returns the window of the calls of the last period on clk,
// empty.
func newTimeWindow(clk clock.Clock, period time.Duration) *window.Window {
	w := new(window.Window)
	w.Init(clk, period)
	return w
}

// addTimed records a call in w, failed or not, and returns the calls in
// the window and the failures among them.
func addTimed(w *window.Window, failed bool) (calls, failures uint64) {
	e := w.Add(w.Epoch(), timedCalls)
	if !failed {
		return 0, 0
	}
	w.Add(e, timedFailures)
	calls, failures = w.Counts(e)
	return calls, min(failures, calls)
}

// trips reports whether failures of calls reach the rate, with at least
// minCalls calls.
func trips(calls, failures, minCalls uint64, rate float64) bool {
	return calls >= minCalls && calls > 0 && float64(failures)/float64(calls) >= rate
}
