package bulkhead

import (
	"context"
	"math"
	"sync/atomic"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/queue"
	"github.com/herdsafe/backoff/internal/setting"
)

// The default thresholds of a PriorityBulkhead, as fractions of its
// capacity: see WithThresholds.
const (
	DefaultLowThreshold      = 0.5
	DefaultStandardThreshold = 0.8
)

// PriorityBulkhead admits at most a fixed number of calls at a time, its
// capacity, and sheds calls by their [Priority], carried by their context
// ([WithPriority]; a context with none is [Standard]), as it fills. A call
// is admitted if its admission would not take the utilisation, the calls
// in flight divided by the capacity, above the threshold of its priority:
// [DefaultLowThreshold] (50%) for Low, [DefaultStandardThreshold] (80%) for
// Standard, and 100% for Critical, so that a share of the capacity is
// always kept for the calls that matter most. The utilisation counts every
// call in flight, whatever its priority. With a capacity of 10 and the
// default thresholds, a low-priority call is admitted while at most 4
// calls are in flight (5 of 10 is not above 50%) and shed once 5 are; a
// standard one while at most 7 are; a critical one while at most 9 are.
//
// A call it sheds is refused at once with a [ShedError], which matches
// [ErrBulkheadFull]: a PriorityBulkhead has no queue.
//
// Make one with [NewPriority] and share it: a PriorityBulkhead is safe for
// concurrent use. Put it in a policy with policy.Guard, use it on its own
// with [PriorityBulkhead.Run], or call [PriorityBulkhead.Allow] and
// [PriorityBulkhead.Record] around work of your own. Its zero value is not usable: it refuses every call with an
// error matching [backoff.ErrInvalidConfiguration]. It takes no lock,
// allocates nothing, reads no clock and starts no goroutine: an admission
// or a refusal is a compare-and-swap on one counter, and a context lookup.
type PriorityBulkhead struct {
	inFlight atomic.Int64
	// limits holds, by Priority.index, the most calls in flight that a
	// call of that priority leaves when admitted; all 0 when the bulkhead
	// is unusable, so that the fast path refuses.
	limits [3]int64
	shed   [3]error // the refusals, made once so that refusing allocates nothing

	capacity int
	err      error
	refused  [3]atomic.Uint64
	canceled atomic.Uint64
}

var (
	_ guard.Guard     = (*PriorityBulkhead)(nil)
	_ guard.Validator = (*PriorityBulkhead)(nil)
)

// PriorityOption configures a [PriorityBulkhead].
type PriorityOption func(*priorityConfig)

type priorityConfig struct {
	low, standard float64
	err           error
}

// WithThresholds sets the utilisations, as fractions of the capacity, above
// which a PriorityBulkhead sheds [Low] and [Standard] calls: a call of that
// priority is admitted only if, counting it, the calls in flight would be
// at most threshold × capacity. The defaults are [DefaultLowThreshold] and
// [DefaultStandardThreshold]. Each must be in (0, 1], low must not be above
// standard, and each must leave at least one slot for its calls (threshold
// × capacity ≥ 1); any other setting, NaN included, is invalid. Equal
// thresholds treat Low and Standard alike; 1 for both sheds nothing until
// the bulkhead is full.
func WithThresholds(low, standard float64) PriorityOption {
	return func(c *priorityConfig) {
		if setting.Thresholds(settings, &c.err, low, standard, "WithThresholds") {
			c.low, c.standard = low, standard
		}
	}
}

// NewPriority returns a PriorityBulkhead that admits at most capacity
// calls at a time, shedding calls by priority as opts say. A capacity that
// is not positive or is above [MaxCapacity], thresholds out of order or
// outside (0, 1], or thresholds that leave no slot to a priority (a
// capacity of 1 with the default thresholds, under which only critical
// calls could ever be admitted), make a PriorityBulkhead that reports the
// problem through [PriorityBulkhead.Validate] and refuses every call with
// it; a bad capacity and the first bad option are both reported.
// NewPriority never panics.
func NewPriority(capacity int, opts ...PriorityOption) *PriorityBulkhead {
	cfg := priorityConfig{low: DefaultLowThreshold, standard: DefaultStandardThreshold}
	setting.Apply(settings, &cfg.err, "NewPriority", &cfg, opts)
	b := &PriorityBulkhead{capacity: capacity, err: setting.Join(checkCapacity("NewPriority", capacity), cfg.err)}
	if b.err == nil {
		b.err = checkThresholds(capacity, cfg.low, cfg.standard)
	}
	thresholds := [3]float64{cfg.low, cfg.standard, 1}
	for i, t := range thresholds {
		b.shed[i] = ShedError{Priority: Low + Priority(i), Threshold: t}
		if b.err == nil {
			b.limits[i] = slots(t, capacity)
		}
	}
	return b
}

// checkThresholds reports a threshold, low or standard, that leaves no
// slot for its calls in a bulkhead of the given capacity.
func checkThresholds(capacity int, low, standard float64) error {
	for _, t := range []struct {
		name  string
		value float64
	}{{"low", low}, {"standard", standard}} {
		if slots(t.value, capacity) < 1 {
			return settings.Invalid("NewPriority(%d): the %s threshold %v (WithThresholds) leaves no slot for %s-priority calls",
				capacity, t.name, t.value, t.name)
		}
	}
	return nil
}

// slots returns the most calls in flight, n, whose utilisation n/capacity
// is not above t. It compares the quotient, as computed in floating point,
// with t, so that t = 0.57 of a capacity of 100 gives 57, although 0.57 ×
// 100 computes to 56.99999999999999.
func slots(t float64, capacity int) int64 {
	c := float64(capacity)
	n := int64(math.Floor(t * c))
	for n < int64(capacity) && float64(n+1)/c <= t {
		n++
	}
	for n > 0 && float64(n)/c > t {
		n--
	}
	return n
}

// Validate reports a bad configuration given to [NewPriority], as an error
// that matches [backoff.ErrInvalidConfiguration] and names the setting, or
// nil. It makes the PriorityBulkhead a [guard.Validator]: policy.Guard
// calls it.
func (b *PriorityBulkhead) Validate() error {
	if b == nil || (b.err == nil && b.limits[Critical.index()] == 0) {
		return errZeroValue
	}
	return b.err
}

// Allow admits the call if admitting it would not take the bulkhead's
// utilisation above the threshold of the call's priority, read from ctx
// with [PriorityFrom]; then call [PriorityBulkhead.Record] exactly once
// when the call ends. Otherwise it refuses the call at once with a
// [ShedError], which matches [ErrBulkheadFull]. A ctx that is done is
// refused with an error that matches ctx.Err() and context.Cause(ctx),
// and not ErrBulkheadFull; a nil ctx, with an error matching
// [backoff.ErrInvalidConfiguration]. The Call is not used.
func (b *PriorityBulkhead) Allow(ctx context.Context, _ guard.Call) (guard.Permit, error) {
	if ctx != nil && ctx.Err() == nil {
		i := PriorityFrom(ctx).index()
		limit := b.limits[i]
		for n := b.inFlight.Load(); n < limit; n = b.inFlight.Load() {
			if b.inFlight.CompareAndSwap(n, n+1) {
				return guard.Permit{}, nil
			}
		}
		if limit > 0 {
			b.refused[i].Add(1)
			return guard.Permit{}, b.shed[i]
		}
	}
	return guard.Permit{}, b.refuse(ctx)
}

// refuse is the error of Allow for a bulkhead or a context that cannot be
// used.
func (b *PriorityBulkhead) refuse(ctx context.Context) error {
	switch {
	case ctx == nil:
		return errNilContext
	case b.Validate() != nil:
		return b.Validate()
	}
	b.canceled.Add(1)
	return queue.Canceled(string(settings), ctx)
}

// Record frees the slot of a call that [PriorityBulkhead.Allow] admitted.
// The Permit and the Outcome are not used. Record panics if no call is in
// flight, as it is then called once too often.
func (b *PriorityBulkhead) Record(guard.Permit, guard.Outcome) {
	b.release()
}

func (b *PriorityBulkhead) release() {
	if b.inFlight.Add(-1) < 0 {
		b.inFlight.Add(1)
		panic(errUnbalanced)
	}
}

// Run runs fn in a slot of the bulkhead, as [Bulkhead.Run] does: it is
// [guard.Run] with guard.Call{Attempt: 1}. If Allow refuses, it returns
// without calling fn an error that matches [backoff.ErrRefused] and wraps
// Allow's error (a [ShedError], or the context's); otherwise fn's error,
// freeing the slot when fn returns or panics. The call's priority is the
// one ctx carries. A ctx already done is refused before the bulkhead is
// asked, as guard.Run refuses one (see package guard).
func (b *PriorityBulkhead) Run(ctx context.Context, fn func(context.Context) error) error {
	return guard.Run(ctx, b, guard.Call{Attempt: 1}, fn)
}

// PriorityStats is a reading of a [PriorityBulkhead], for telemetry.
type PriorityStats struct {
	Capacity int // the most calls in flight at once, as given to NewPriority
	InFlight int // calls admitted and not yet recorded
	// RefusedLow, RefusedStandard and RefusedCritical count the calls of
	// each priority refused with a ShedError since NewPriority.
	RefusedLow, RefusedStandard, RefusedCritical uint64
	// Canceled counts the callers refused because their context was done.
	Canceled uint64
}

// Stats returns a reading of the bulkhead. It takes no lock.
func (b *PriorityBulkhead) Stats() PriorityStats {
	return PriorityStats{
		Capacity:        b.capacity,
		InFlight:        int(b.inFlight.Load()),
		RefusedLow:      b.refused[Low.index()].Load(),
		RefusedStandard: b.refused[Standard.index()].Load(),
		RefusedCritical: b.refused[Critical.index()].Load(),
		Canceled:        b.canceled.Load(),
	}
}
