package budget

import (
	"math"
	"sync/atomic"
)

// inFlight allows retries while the retries in flight are at most a
// fraction of all the calls in flight, or a minimum, whichever is more:
// Envoy's retry_budget.
type inFlight struct {
	calls   atomic.Int64 // calls admitted and not yet recorded, retries included
	retries atomic.Int64 // retries admitted and not yet recorded
	ratio   float64      // WithInFlightRatio's
	min     int64        // WithMinRetryConcurrency's
}

// newInFlight returns the in-flight budget of c, with nothing in flight.
func newInFlight(c *config) *inFlight {
	return &inFlight{ratio: c.inFlightRatio, min: c.minRetries}
}

// start counts a first attempt in flight.
func (f *inFlight) start() { f.calls.Add(1) }

// retry counts a retry in flight and reports true if the budget allows
// one more: with it, the retries in flight are at most the minimum, or
// the ratio of the calls in flight, this one included.
func (f *inFlight) retry() bool {
	for {
		r := f.retries.Load()
		if r+1 > max(f.min, f.allowance(f.calls.Load()+1)) {
			return false
		}
		if f.retries.CompareAndSwap(r, r+1) {
			f.calls.Add(1)
			return true
		}
	}
}

// allowance is the ratio of n calls in flight, rounded down.
func (f *inFlight) allowance(n int64) int64 {
	v := math.Floor(f.ratio*float64(n) + 1e-9)
	if v >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}

// end counts out a call that ended: a retry if retry.
func (f *inFlight) end(retry bool) {
	if retry {
		f.retries.Add(-1)
	}
	f.calls.Add(-1)
}
