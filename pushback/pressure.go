package pushback

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/hop"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/throttle"
)

// Pressure returns how close the guard g is to refusing a first call, a
// server's own guard, read now, as a share of what it admits: a
// *bulkhead.Bulkhead's or a *limiter.Limiter's (in flight + queued) ÷
// capacity (at or above 1 once it is full); 1 for a *throttle.Throttle
// that rejects calls at all (its rejection probability is above 0) and for
// a *breaker.Breaker that is not closed; 0 for anything else, whose state
// tells nothing. Servers shed retries once it reaches a threshold
// (httpshed's and the gRPC module's WithRetryPressure), so that a retry
// does not take a place a first call needs.
//
// It is safe for concurrent use, takes what the guard's Stats or State
// take, and allocates nothing.
func Pressure(g guard.Guard) float64 {
	switch g := g.(type) {
	case *bulkhead.Bulkhead:
		st := g.Stats()
		return share(st.InFlight, st.Queued, st.Capacity)
	case *limiter.Limiter:
		st := g.Stats()
		return share(st.InFlight, st.Queued, st.Limit)
	case *throttle.Throttle:
		if g.Stats().Probability > 0 {
			return 1
		}
	case *breaker.Breaker:
		if s := g.State(); s != breaker.Closed && s != breaker.ForcedClosed {
			return 1
		}
	}
	return 0
}

// share is (inFlight + queued) ÷ limit, 0 for a limit of 0 or less.
func share(inFlight, queued, limit int) float64 {
	if limit <= 0 {
		return 0
	}
	return (float64(inFlight) + float64(queued)) / float64(limit)
}

// Queued returns the callers the guard g has waiting for a place now: a
// *bulkhead.Bulkhead's or a *limiter.Limiter's queue; 0 for anything else.
// A server that measures the time its callers wait in the queue uses it
// to know that the queue is still there.
func Queued(g guard.Guard) int {
	switch g := g.(type) {
	case *bulkhead.Bulkhead:
		return g.Stats().Queued
	case *limiter.Limiter:
		return g.Stats().Queued
	}
	return 0
}

// Gate is what a server decides of a request before its guard is asked,
// from what the request tells of its caller (package hop): a retry is
// refused while the guard's Pressure is at RetryPressure or above, so that
// it never takes the place of a first call, and a request whose caller
// will wait less than the guard's queue takes (QueueTime) is refused at
// once, since nobody would wait for its answer. httpshed's Shedder and the
// gRPC module's server interceptors each keep one.
//
// Make one with NewGate. It is safe for concurrent use.
type Gate struct {
	g        guard.Guard
	clock    clock.Clock
	pressure float64
	queues   bool         // g can make a caller wait
	wait     atomic.Int64 // the last admitted call's wait for g, in nanoseconds

	retriesRefused atomic.Uint64
	lateRefused    atomic.Uint64
}

// GateStats are a Gate's counts, for telemetry.
type GateStats struct {
	// RetriesRefused counts the retries refused under pressure, and
	// LateRefused the requests refused because their caller would not
	// wait for the queue, since the Gate was made.
	RetriesRefused, LateRefused uint64
	// QueueTime is QueueTime now.
	QueueTime time.Duration
}

// Stats returns the Gate's counts. It is safe for concurrent use.
func (gt *Gate) Stats() GateStats {
	return GateStats{RetriesRefused: gt.retriesRefused.Load(), LateRefused: gt.lateRefused.Load(), QueueTime: gt.QueueTime()}
}

// NewGate returns the Gate of the guard g, reading time on clk, which
// refuses retries once g's Pressure reaches pressure (+Inf: never). The
// caller validates its arguments: g and clk not nil, pressure above 0.
func NewGate(g guard.Guard, clk clock.Clock, pressure float64) *Gate {
	var queues bool
	switch g.(type) {
	case *bulkhead.Bulkhead, *limiter.Limiter:
		queues = true
	}
	return &Gate{g: g, clock: clk, pressure: pressure, queues: queues}
}

// Refuse returns why the Gate refuses a request, "" if it lets it through
// to the guard: hop.ReasonDeadline for a caller who will wait timeout (if
// hasTimeout) and that is 0 or less, or less than QueueTime;
// hop.ReasonOverloaded for a retry (attempt above 1) under pressure.
func (gt *Gate) Refuse(attempt int, timeout time.Duration, hasTimeout bool) string {
	switch {
	case hasTimeout && (timeout <= 0 || timeout < gt.QueueTime()):
		gt.lateRefused.Add(1)
		return hop.ReasonDeadline
	case attempt > 1 && !math.IsInf(gt.pressure, 1) && Pressure(gt.g) >= gt.pressure:
		gt.retriesRefused.Add(1)
		return hop.ReasonOverloaded
	}
	return ""
}

// Start returns the time to give Admitted once the guard admits the
// request: the zero Time, read on no clock, for a guard that makes no
// caller wait.
func (gt *Gate) Start() time.Time {
	if !gt.queues {
		return time.Time{}
	}
	return gt.clock.Now()
}

// Admitted records that the guard admitted a request that asked at start
// (what Start returned): the time it waited is the queue's time now.
func (gt *Gate) Admitted(start time.Time) {
	if gt.queues {
		gt.wait.Store(int64(gt.clock.Since(start)))
	}
}

// QueueTime returns the time a request waits now for the guard to admit
// it, as last measured: the wait of the last request the guard admitted,
// while callers are still queued; 0 when none is, and for a guard that
// makes no caller wait (only a *bulkhead.Bulkhead and a *limiter.Limiter
// do).
func (gt *Gate) QueueTime() time.Duration {
	if !gt.queues || Queued(gt.g) == 0 {
		return 0
	}
	return time.Duration(gt.wait.Load())
}
