package limiter

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/queue"
)

// Limiter admits a call while fewer calls than its current limit are in
// flight, and moves the limit from what it measures: the latency of the
// calls that end against the lowest latency it has seen (the no-load
// latency), and their failures. A call over the limit is refused with
// [ErrLimitExceeded], or, with [WithQueue], waits in a bounded queue.
//
// Make one with [New] and share it among the calls to one dependency: a
// Limiter is safe for concurrent use. Put it in a policy with
// policy.Guard, use it on its own with [Limiter.Run], or call
// [Limiter.Allow] and [Limiter.Record] around work of your own. Its zero
// value is not usable: it refuses every call with an error matching
// [backoff.ErrInvalidConfiguration].
//
// An admitted call with the limit not reached and nobody queued costs, on
// Allow, a compare-and-swap and a reading of the clock, and, on Record,
// one more reading, a compare-and-swap and two atomic additions; no lock,
// no allocation. Once per sample window, the call that ends it takes a
// mutex, without waiting for it, to move the limit, and, if the limit
// grows, the queue's mutex, to admit the callers queued. Queueing takes a
// mutex, and allocates the waiter and, with a maximum wait, its timer.
// The Limiter starts no goroutine and calls no function of yours but the
// classifier (WithIsFailure) and the clock.
type Limiter struct {
	// q holds the calls in flight, the callers queued and the limit:
	// the most calls in flight a critical call leaves when admitted.
	q queue.Queue
	// shares holds, for low and standard calls, the most calls in flight
	// a call of that priority leaves when admitted: its share of the
	// limit, all of it for a threshold of 1 (as for every call when
	// priorities are not read). The limit and the shares are all 0 when
	// the Limiter is unusable, so that the fast path refuses.
	shares      [criticalIndex]atomic.Uint64
	prioritized bool
	// shedOnly says, by priority index, that calls of that priority may
	// take a share of the limit only: they are shed, never queued.
	shedOnly [numPriorities]bool

	clock  clock.Clock
	origin time.Time // Permit tokens count nanoseconds from it

	// The sample window being filled: the latency summed and the number
	// of the calls that succeeded, the failures, and the most calls in
	// flight at an admission. winEnd is the earliest the window may end,
	// in nanoseconds from origin.
	sum, successes, failures atomic.Int64
	peak                     atomic.Uint64
	winEnd                   atomic.Int64

	mu  sync.Mutex // held by the call that ends a window; never waited for
	est estimate   // guarded by mu

	// What the last window measured, for Stats.
	latency, noLoad atomic.Int64

	cfg   config
	shed  [numPriorities]error
	err   error // why the Limiter is unusable
	ready bool

	refused  [numPriorities]atomic.Uint64
	canceled atomic.Uint64
}

var (
	_ guard.Guard     = (*Limiter)(nil)
	_ guard.Validator = (*Limiter)(nil)
)

// numPriorities is the number of priorities, bulkhead.Low to
// bulkhead.Critical.
const numPriorities = 3

// The priority indexes.
const (
	lowIndex      = 0
	standardIndex = 1
	criticalIndex = 2
)

// index returns p's place in per-priority arrays, clamping values outside
// bulkhead.Low to bulkhead.Critical, as a PriorityBulkhead does.
func index(p bulkhead.Priority) int {
	return int(min(max(p, bulkhead.Low), bulkhead.Critical) - bulkhead.Low)
}

// New returns a Limiter configured by opts: by default the gradient
// algorithm, from a limit of 20 between 1 and 1000, over sample windows of
// 100 ms and 10 calls at least, on the time package's clock, with no queue
// and no priorities. A bad option, or options that contradict each other
// (a floor above the ceiling, an initial limit outside them), make a
// Limiter that reports the problem through [Limiter.Validate] and refuses
// every call with it: New never panics, so that it fits inline in
// policy.New, which reports it.
func New(opts ...Option) *Limiter {
	cfg := newConfig(opts)
	l := &Limiter{cfg: cfg, clock: cfg.clock, err: cfg.err}
	thresholds := [numPriorities]float64{cfg.low, cfg.standard, 1}
	l.prioritized = cfg.low < 1 || cfg.standard < 1
	for i, t := range thresholds {
		l.shed[i] = ShedError{Priority: bulkhead.Low + bulkhead.Priority(i), Threshold: t}
		l.shedOnly[i] = t < 1
	}
	l.q.Init(queue.Config{Settings: cfg.wait, Clock: cfg.clock, Name: string(settings), Refused: ErrLimitExceeded, Unbalanced: errUnbalanced})
	if l.err != nil {
		return l
	}
	l.ready = true
	l.origin = l.clock.Now()
	l.est.init(&l.cfg)
	l.winEnd.Store(int64(cfg.window))
	l.publish(cfg.initial)
	return l
}

// Validate reports a bad configuration given to [New], as an error that
// matches [backoff.ErrInvalidConfiguration] and names the setting, or nil.
// It makes the Limiter a [guard.Validator]: policy.Guard calls it, so that
// a Policy with a bad Limiter fails every call before running anything.
func (l *Limiter) Validate() error {
	if l == nil || (l.err == nil && !l.ready) {
		return errZero
	}
	return l.err
}

// Allow asks to admit a call. A nil error admits it: make the call, then
// call [Limiter.Record] exactly once with the Permit, whatever happens, to
// free its place and report how it ended. The Call is not used.
//
// If the limit is reached, or other callers are queued, Allow refuses the
// call with an error matching [ErrLimitExceeded], unless the Limiter has
// a queue with room: then it waits, behind the callers queued before it,
// until it is admitted (a call ends, or the limit grows), its maximum wait
// passes (an error matching ErrLimitExceeded), or ctx is done. With
// WithPriorityThresholds, a call over the share of the limit its priority
// may use (read from ctx with bulkhead.PriorityFrom) is refused at once
// with a [ShedError]. A caller whose ctx is done, before it asks or while
// it waits, is refused with an error that matches ctx.Err() and
// context.Cause(ctx), and not ErrLimitExceeded. A Limiter that cannot be
// used (see Validate) refuses every call with its configuration error. A
// nil ctx is refused with an error matching
// [backoff.ErrInvalidConfiguration], as every guard of this repository
// refuses it.
func (l *Limiter) Allow(ctx context.Context, _ guard.Call) (guard.Permit, error) {
	i := standardIndex
	if l != nil && ctx != nil && ctx.Err() == nil {
		if l.prioritized {
			i = index(bulkhead.PriorityFrom(ctx))
		}
		if n, ok := l.q.TryAcquire(l.limit(i)); ok {
			l.notePeak(n)
			return guard.Permit{Token: l.stamp()}, nil
		}
	}
	if err := l.acquire(ctx, i); err != nil {
		return guard.Permit{}, err
	}
	return guard.Permit{Token: l.stamp()}, nil
}

// stamp returns the time now, in nanoseconds from the origin, as a
// Permit's token: when the call was admitted.
func (l *Limiter) stamp() uint64 {
	return uint64(max(0, l.clock.Now().Sub(l.origin)))
}

// Record frees the place of a call that [Limiter.Allow] admitted, and
// reports how it ended: a success (a nil error, or an error WithIsFailure
// does not count) is a measure of the latency, from its admission to now;
// a failure shrinks the limit at the end of the sample window (see
// WithDecrease). An abandoned call (Outcome.Abandoned) and one that a
// guard inside the Limiter refused (guard.IsRefusal) count neither way:
// they say nothing about the dependency's latency. The call that ends a
// sample window moves the limit, and hands the places a higher limit
// makes to the callers queued.
//
// Record panics if no call is in flight, as it is then called once too
// often; an extra Record that finds another call in flight frees that
// call's place, as an extra sync.WaitGroup.Done would. The Permit must be
// one this Limiter's Allow returned, or the latency it measures is wrong.
// A Limiter that cannot be used (see Validate) records nothing.
func (l *Limiter) Record(p guard.Permit, o guard.Outcome) {
	if l == nil || !l.ready {
		return
	}
	if o.Abandoned || (o.Err != nil && guard.IsRefusal(o.Err)) {
		l.q.Release()
		return
	}
	now := int64(max(0, l.clock.Now().Sub(l.origin)))
	l.q.Release()
	if o.Err != nil && (l.cfg.isFailure == nil || l.classify(now, o.Err)) {
		l.failed(now)
		return
	}
	l.sum.Add(max(1, now-int64(p.Token)))
	n := l.successes.Add(1)
	if n+l.failures.Load() >= int64(l.cfg.samples) && now >= l.winEnd.Load() {
		l.endWindow(now)
	}
}

// classify asks the classifier about err. If it panics, the call is
// counted as a failure before the panic goes on.
func (l *Limiter) classify(now int64, err error) bool {
	done := false
	defer func() {
		if !done {
			l.failed(now)
		}
	}()
	failure := l.cfg.isFailure(err)
	done = true
	return failure
}

// failed counts a failure in the sample window.
func (l *Limiter) failed(now int64) {
	f := l.failures.Add(1)
	if f+l.successes.Load() >= int64(l.cfg.samples) && now >= l.winEnd.Load() {
		l.endWindow(now)
	}
}

// Run runs fn under the Limiter: it is [guard.Run] with
// guard.Call{Attempt: 1}. It asks [Limiter.Allow] to admit the call, with
// ctx, and if Allow refuses, returns without calling fn an error that
// matches [backoff.ErrRefused] and wraps Allow's error (one matching
// [ErrLimitExceeded], or the context's); otherwise it calls fn with ctx,
// records how it ended when fn returns, and returns fn's error. The call's
// place is freed if fn panics too (the call then counts as a failure, the
// Limiter counting [guard.ErrPanicked] as one), and the panic goes on. A
// ctx done already is refused before the Limiter is asked, as guard.Run
// refuses one (see package guard): Stats does not count it as Canceled. A
// nil ctx or fn is reported as an error matching
// [backoff.ErrInvalidConfiguration].
func (l *Limiter) Run(ctx context.Context, fn func(context.Context) error) error {
	return guard.Run(ctx, l, guard.Call{Attempt: 1}, fn)
}

// Stats is a reading of a [Limiter], for telemetry. InFlight and Queued
// are read together, at one instant; the rest just after.
type Stats struct {
	// Limit is the current limit: the most calls in flight at once.
	Limit int
	// InFlight counts the calls admitted and not yet recorded; it may be
	// above the limit just after the limit shrank.
	InFlight int
	// Queued counts the callers waiting to be admitted.
	Queued int
	// RefusedLow, RefusedStandard and RefusedCritical count the calls of
	// each priority refused with ErrLimitExceeded since New: the limit
	// reached and no room in the queue, the maximum wait reached, or shed
	// by their priority. Without WithPriorityThresholds every call counts
	// as standard.
	RefusedLow, RefusedStandard, RefusedCritical uint64
	// Canceled counts the callers turned away because their context was
	// done, before they asked or while they waited.
	Canceled uint64
	// Latency is the mean latency of the calls that succeeded in the last
	// sample window, and NoLoadLatency the lowest such mean remembered
	// (see WithBaseline); both are 0 until a window has ended.
	Latency, NoLoadLatency time.Duration
}

// Refused returns the refusals of every priority.
func (s Stats) Refused() uint64 { return s.RefusedLow + s.RefusedStandard + s.RefusedCritical }

// Stats returns a reading of the Limiter. It takes no lock and reads no
// clock.
func (l *Limiter) Stats() Stats {
	if l == nil {
		return Stats{}
	}
	inFlight, queued := l.q.Load()
	return Stats{
		Limit:           int(l.q.Limit()),
		InFlight:        inFlight,
		Queued:          queued,
		RefusedLow:      l.refused[lowIndex].Load(),
		RefusedStandard: l.refused[standardIndex].Load(),
		RefusedCritical: l.refused[criticalIndex].Load(),
		Canceled:        l.canceled.Load(),
		Latency:         time.Duration(l.latency.Load()),
		NoLoadLatency:   time.Duration(l.noLoad.Load()),
	}
}

// limit returns the most calls in flight a call of priority index i
// leaves when admitted.
func (l *Limiter) limit(i int) uint64 {
	if i == criticalIndex {
		return l.q.Limit()
	}
	return l.shares[i].Load()
}

// notePeak keeps the most calls in flight at an admission in the window.
func (l *Limiter) notePeak(n uint64) {
	for {
		p := l.peak.Load()
		if n <= p || l.peak.CompareAndSwap(p, n) {
			return
		}
	}
}

// acquire is the slow path of Allow: it reports a Limiter or a context
// that cannot be used, sheds, or asks the queue, and counts a caller it
// does not admit.
func (l *Limiter) acquire(ctx context.Context, i int) error {
	switch {
	case ctx == nil:
		return errNilContext
	case l == nil || !l.ready:
		return l.Validate()
	case ctx.Err() != nil:
		l.canceled.Add(1)
		return queue.Canceled(string(settings), ctx)
	case l.shedOnly[i]:
		if n, ok := l.q.TryAcquire(l.limit(i)); ok {
			l.notePeak(n)
			return nil
		}
		l.refused[i].Add(1)
		return l.shed[i]
	}
	err := l.q.Acquire(ctx)
	switch {
	case err == nil:
		inFlight, _ := l.q.Load()
		l.notePeak(uint64(inFlight))
	case queue.GaveUp(err):
		l.canceled.Add(1)
	default:
		l.refused[i].Add(1)
	}
	return err
}

// publish makes limit the current limit, and each priority's share of it,
// and admits the callers queued into the places a higher limit makes.
func (l *Limiter) publish(limit int) {
	for i, t := range [...]float64{l.cfg.low, l.cfg.standard} {
		l.shares[i].Store(uint64(share(t, limit)))
	}
	l.q.SetLimit(limit)
}

// share returns the most calls in flight, n, whose share n/limit of the
// limit is not above t, and 1 at least, so that every priority may have a
// call in flight. It compares the quotient, as computed in floating point,
// with t, so that t = 0.57 of a limit of 100 gives 57.
func share(t float64, limit int) int {
	c := float64(limit)
	n := int(math.Floor(t * c))
	for n < limit && float64(n+1)/c <= t {
		n++
	}
	for n > 1 && float64(n)/c > t {
		n--
	}
	return max(n, 1)
}
