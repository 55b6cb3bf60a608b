package pushback

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/hop"
)

// Pressure returns how close the guard g is to refusing a first call, a
// server's own guard, read now from its Load (guard.Loader), as a share of
// what it admits: (in flight + queued) ÷ capacity for a guard that counts
// its calls, a *bulkhead.Bulkhead's or a *limiter.Limiter's (at or above
// 1 once it is full); 1 at least for a guard that rejects calls at all
// (a *throttle.Throttle whose rejection probability is above 0) or
// refuses them whatever their number (a *breaker.Breaker that is not
// closed); 0 for a guard that is no Loader, whose state tells nothing.
// Servers shed retries once it reaches a threshold (httpshed's and the
// gRPC module's WithRetryPressure), so that a retry does not take a place
// a first call needs.
//
// It is safe for concurrent use, takes what the guard's Load takes (the
// guards of this repository read their Stats or State), and allocates
// nothing.
func Pressure(g guard.Guard) float64 {
	l := loadOf(g)
	p := share(l.InFlight, l.Queued, l.Capacity)
	if l.Refusing || l.Rejection > 0 {
		p = max(p, 1)
	}
	return p
}

// share is (inFlight + queued) ÷ limit, 0 for a limit of 0 or less.
func share(inFlight, queued, limit int) float64 {
	if limit <= 0 {
		return 0
	}
	return (float64(inFlight) + float64(queued)) / float64(limit)
}

// Queued returns the callers the guard g has waiting for a place now, as
// its Load tells (a *bulkhead.Bulkhead's or a *limiter.Limiter's queue);
// 0 for a guard that is no guard.Loader. A server that measures the time
// its callers wait in the queue uses it to know that the queue is still
// there.
func Queued(g guard.Guard) int {
	return loadOf(g).Queued
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
// It reads g's Load once, to learn whether g queues its callers (Queues).
func NewGate(g guard.Guard, clk clock.Clock, pressure float64) *Gate {
	return &Gate{g: g, clock: clk, pressure: pressure, queues: loadOf(g).Queues}
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
// while callers are still queued; 0 when none is, and for a guard whose
// Load does not say it Queues (a *bulkhead.Bulkhead's and a
// *limiter.Limiter's do).
func (gt *Gate) QueueTime() time.Duration {
	if !gt.queues || Queued(gt.g) == 0 {
		return 0
	}
	return time.Duration(gt.wait.Load())
}
