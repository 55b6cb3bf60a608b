package bulkhead

import (
	"context"
	"sync/atomic"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/queue"
	"github.com/herdsafe/backoff/internal/setting"
)

// Bulkhead admits at most a fixed number of calls at a time: its capacity.
// A call that finds every slot taken is refused with [ErrBulkheadFull], or,
// with [WithQueue], waits in a bounded queue; a slot that is freed goes to
// the caller that has waited longest.
//
// Make one with [New] and share it: a Bulkhead is safe for concurrent use.
// Put it in a policy with policy.Guard, or use it on its own with
// [Bulkhead.Run], or call [Bulkhead.Allow] and [Bulkhead.Record] around
// work of your own. Its zero value is not usable:
// it refuses every call with an error matching
// [backoff.ErrInvalidConfiguration].
//
// An admitted call with a slot free and nobody queued costs one
// compare-and-swap on Allow and one on Record: no lock, no allocation, no
// clock. Queueing takes a mutex, and allocates the waiter and, with a
// maximum wait, its timer. The bulkhead starts no goroutine and calls no
// function of yours, but for the clock's Timer.
type Bulkhead struct {
	q        queue.Queue // its limit 0 when the bulkhead is unusable, so that the fast path refuses
	capacity int
	err      error // why the bulkhead is unusable

	refused  atomic.Uint64
	canceled atomic.Uint64
}

var (
	_ guard.Guard     = (*Bulkhead)(nil)
	_ guard.Validator = (*Bulkhead)(nil)
)

// New returns a Bulkhead that admits at most capacity calls at a time,
// configured by opts. A capacity that is not positive, or is above
// [MaxCapacity], or a bad option, makes a Bulkhead that reports the problem
// through [Bulkhead.Validate] and refuses every call with it: New never
// panics, so that it fits inline in policy.New, which reports it. A bad
// capacity and the first bad option are both reported.
func New(capacity int, opts ...Option) *Bulkhead {
	cfg := config{clock: setting.RealClock}
	setting.Apply(settings, &cfg.err, "New", &cfg, opts)
	cfg.wait.Check(settings, &cfg.err)
	b := &Bulkhead{capacity: capacity, err: setting.Join(checkCapacity("New", capacity), cfg.err)}
	limit := 0
	if b.err == nil {
		limit = capacity
	}
	b.q.Init(queue.Config{Settings: cfg.wait, Limit: limit, Clock: cfg.clock, Name: string(settings), Refused: ErrBulkheadFull, Unbalanced: errUnbalanced})
	return b
}

// Validate reports a bad configuration given to [New], as an error that
// matches [backoff.ErrInvalidConfiguration] and names the setting, or nil.
// It makes the Bulkhead a [guard.Validator]: policy.Guard calls it, so
// that a Policy with a bad bulkhead fails every call before running
// anything.
func (b *Bulkhead) Validate() error {
	if b == nil || (b.err == nil && b.q.Limit() == 0) {
		return errZeroValue
	}
	return b.err
}

// Allow asks for a slot for a call. A nil error admits the call: make it,
// then call [Bulkhead.Record] exactly once, whatever happens, to free the
// slot. The Call is not used: every call takes one slot.
//
// If every slot is taken, or other callers are queued, Allow refuses the
// call with an error matching [ErrBulkheadFull], unless the bulkhead has a
// queue with room: then it waits, behind the callers queued before it,
// until it is handed a slot, its maximum wait passes (an error matching
// ErrBulkheadFull), or ctx is done. A caller whose ctx is done, before it
// asks or while it waits, is refused with an error that matches ctx.Err()
// and context.Cause(ctx), and not ErrBulkheadFull: the caller gave up, the
// bulkhead did not refuse it. Such a caller holds no slot afterwards: a
// slot handed to it as its context ended goes on to the next caller in
// the queue. Allow does not admit a call whose ctx it finds done. A nil
// ctx is refused with an error matching [backoff.ErrInvalidConfiguration].
func (b *Bulkhead) Allow(ctx context.Context, _ guard.Call) (guard.Permit, error) {
	if ctx != nil && ctx.Err() == nil {
		if _, ok := b.q.TryAcquire(b.q.Limit()); ok {
			return guard.Permit{}, nil
		}
	}
	return guard.Permit{}, b.acquire(ctx)
}

// Record frees the slot of a call that [Bulkhead.Allow] admitted, handing
// it to the caller that has waited longest, if any. The Permit and the
// Outcome are not used: how the call ended does not matter to a bulkhead.
// Record panics if no call is in flight, as it is then called once too
// often; an extra Record that finds another call in flight frees that
// call's slot, as an extra sync.WaitGroup.Done would.
func (b *Bulkhead) Record(guard.Permit, guard.Outcome) {
	b.q.Release()
}

// Run runs fn in a slot of the bulkhead: it is [guard.Run] with
// guard.Call{Attempt: 1}. It asks [Bulkhead.Allow] for a slot, with ctx,
// and if Allow refuses, returns without calling fn an error that matches
// [backoff.ErrRefused] and wraps Allow's error (one matching
// [ErrBulkheadFull], or the context's); otherwise it calls fn with ctx,
// frees the slot when fn returns, and returns fn's error. The slot is
// freed if fn panics too, and the panic goes on. A ctx already done is
// refused before the bulkhead is asked, as guard.Run refuses one (see
// package guard): it takes no slot, and Stats does not count it. A nil ctx
// or fn is reported as an error matching [backoff.ErrInvalidConfiguration].
func (b *Bulkhead) Run(ctx context.Context, fn func(context.Context) error) error {
	return guard.Run(ctx, b, guard.Call{Attempt: 1}, fn)
}

// Stats is a reading of a [Bulkhead], for telemetry. InFlight and Queued
// are read together, at one instant; the counts are read just after.
type Stats struct {
	Capacity int // the most calls in flight at once, as given to New
	InFlight int // calls admitted and not yet recorded
	Queued   int // callers waiting for a slot
	// Refused counts the calls refused with ErrBulkheadFull since New:
	// every slot taken and no room in the queue, or the maximum wait
	// reached.
	Refused uint64
	// Canceled counts the callers turned away because their context was
	// done, before they asked or while they waited.
	Canceled uint64
}

// Stats returns a reading of the bulkhead. It takes no lock. A nil
// *Bulkhead reads as empty, of capacity 0.
func (b *Bulkhead) Stats() Stats {
	if b == nil {
		return Stats{}
	}
	inFlight, queued := b.q.Load()
	return Stats{
		Capacity: b.capacity,
		InFlight: inFlight,
		Queued:   queued,
		Refused:  b.refused.Load(),
		Canceled: b.canceled.Load(),
	}
}

// acquire is the slow path of Allow: it reports a bulkhead or a context
// that cannot be used, or asks the queue, and counts a caller it does not
// admit.
func (b *Bulkhead) acquire(ctx context.Context) error {
	switch {
	case ctx == nil:
		return errNilContext
	case b.q.Limit() == 0:
		return b.Validate()
	}
	err := b.q.Acquire(ctx)
	switch {
	case err == nil:
	case queue.GaveUp(err):
		b.canceled.Add(1)
	default:
		b.refused.Add(1)
	}
	return err
}
