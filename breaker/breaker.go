package breaker

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/setting"
)

// Breaker is a circuit breaker; see the package documentation for its
// states. It is a [guard.Guard]: put it in a Policy with policy.Guard, or
// call [Breaker.Run], or the pair [Breaker.Allow] and [Breaker.Record]
// around a call of your own.
//
// A Breaker is safe for concurrent use, and meant to be shared by every
// caller of one dependency. Its zero value is not usable: it refuses every
// call with an error matching [backoff.ErrInvalidConfiguration]; make one
// with [New].
type Breaker struct {
	cur atomic.Pointer[period]
	cfg config // fixed by New

	mu       sync.Mutex    // serializes the changes of state
	lastOpen time.Duration // the open duration used last; under mu

	_           [64]byte // keeps the counter of successes off the lines read on every call
	successes   atomic.Uint64
	_           [64]byte
	failures    atomic.Uint64
	neutral     atomic.Uint64
	ignored     atomic.Uint64
	rejections  atomic.Uint64
	transitions atomic.Uint64
	slowCalls   atomic.Uint64
	forced      atomic.Uint64
}

var (
	_ guard.Guard      = (*Breaker)(nil)
	_ guard.Validator  = (*Breaker)(nil)
	_ guard.Prechecker = (*Breaker)(nil)
)

// New returns a Breaker, closed, configured by opts. Without options it
// trips after DefaultConsecutiveFailures failures in a row, stays open for
// DefaultOpenDuration, then admits DefaultProbes probe and closes after
// DefaultProbeSuccesses success; every error is a failure, and time is
// the time package's.
//
// New returns no error, so that it fits inline in policy.New: an option
// it cannot use makes the Breaker refuse every call with an error
// matching backoff.ErrInvalidConfiguration that names the option, which
// Validate reports and policy.Guard reports for the Policy.
func New(opts ...Option) *Breaker {
	b := &Breaker{cfg: defaults}
	setting.Apply(settings, &b.cfg.err, "New", &b.cfg, opts)
	b.cfg.checkSlow()
	b.lastOpen = b.cfg.open
	if b.cfg.backOff != nil {
		b.cfg.backOff.Reset()
	}
	p := &period{gen: 1, state: Closed}
	if b.cfg.err != nil {
		p.state = Open
	} else {
		b.fill(p)
	}
	b.cur.Store(p)
	return b
}

// Validate reports why the Breaker cannot be used: the first option New
// could not apply, or that it is a zero Breaker. The error matches
// backoff.ErrInvalidConfiguration. It makes the Breaker a
// [guard.Validator]: policy.Guard calls it.
func (b *Breaker) Validate() error {
	if b == nil || b.cur.Load() == nil {
		return errZero
	}
	return b.cfg.err
}

// Allow asks the breaker to admit a call, as a [guard.Guard]. Closed,
// it admits it. Open, it refuses it with an [*OpenError], until the open
// duration has passed; then it turns half-open. Half-open, it admits the
// call as a probe while a probe's place is free, and refuses it otherwise.
// Forced open, it refuses it; forced closed, it admits it.
// An admitted call must be followed by exactly one Record with the Permit.
//
// Allow never blocks, and does not look at c. Closed (or forced closed),
// it admits whatever ctx says; in any other state it refuses a ctx already done with its
// cause, so that no probe's place goes to a call that cannot run. A
// Breaker that is not usable (see Validate) refuses every call with its
// configuration error, and a nil ctx is refused with an error matching
// [backoff.ErrInvalidConfiguration], in every state.
func (b *Breaker) Allow(ctx context.Context, _ guard.Call) (guard.Permit, error) {
	if ctx == nil {
		return guard.Permit{}, errNilContext
	}
	if p := b.cur.Load(); p != nil && (p.state == Closed || p.state == ForcedClosed) {
		return guard.Permit{Token: b.token(p)}, nil
	}
	if ctx.Err() != nil {
		return guard.Permit{}, context.Cause(ctx)
	}
	return b.allowSlow()
}

// allowSlow is Allow in every state but closed.
func (b *Breaker) allowSlow() (guard.Permit, error) {
	if err := b.Validate(); err != nil {
		return guard.Permit{}, err
	}
	p := b.cur.Load()
	for {
		switch p.state {
		case Closed, ForcedClosed:
			return guard.Permit{Token: b.token(p)}, nil
		case HalfOpen:
			if p.takeProbe(b.cfg.probes) {
				return guard.Permit{Token: b.token(p)}, nil
			}
			b.rejections.Add(1)
			return guard.Permit{}, &OpenError{State: HalfOpen}
		case ForcedOpen:
			b.rejections.Add(1)
			return guard.Permit{}, &OpenError{State: ForcedOpen}
		}
		if wait := p.until.Sub(b.cfg.clock.Now()); wait > 0 {
			b.rejections.Add(1)
			return guard.Permit{}, &OpenError{State: Open, Duration: wait}
		}
		p = b.move(p, HalfOpen)
	}
}

// Precheck refuses a call, as Allow would and counting the rejection,
// only while the breaker is forced open (ForceOpen), which no wait ends;
// it returns nil in every other state, and takes nothing. It makes the
// Breaker a [guard.Prechecker]: a retry stage of package policy asks it
// before the wait for a retry. An open breaker is not refused so, though
// Allow would refuse it now: its open duration may end during the wait,
// and its half-open probe needs that time to pass, so Allow answers after
// the wait.
func (b *Breaker) Precheck(guard.Call) error {
	if b == nil || b.cfg.err != nil {
		return nil
	}
	if p := b.cur.Load(); p != nil && p.state == ForcedOpen {
		b.rejections.Add(1)
		return &OpenError{State: ForcedOpen}
	}
	return nil
}

// Record tells the breaker how a call that Allow admitted ended, as a
// [guard.Guard]. A call whose error is nil is a success; one whose error
// WithIsFailure counts (by default, any) is a failure; an abandoned call,
// or one that a guard inside the breaker refused, is neither. With
// WithSlowCalls, a success or a failure that took longer than its
// duration is also slow. A failure (or a slow call) may trip a closed
// breaker, or reopen a half-open one; enough fast probe successes close
// it. Forced closed, the breaker counts the call and never trips; forced
// open, it admitted none.
//
// The Permit's Token names the state that admitted the call (and, with
// WithSlowCalls, when): each change of state starts a new one, so a
// Permit of an earlier state is ignored: the calls admitted before the last change count for
// nothing after it. So is a Permit Allow did not issue. A change of state
// Record makes runs the state-change hook on the calling goroutine.
//
// Record each Permit once. A Permit recorded twice while half-open is
// detected and ignored (counted in Counts.Ignored): a half-open breaker
// takes no more records than the probes it admitted, so one probe's
// success recorded twice cannot close it. While closed it is not detected,
// since telling the Permits apart would cost every admitted call a count
// shared by all of them: it counts as two calls (two failures may trip
// the breaker), as calls through guard.Run and policy stages never make
// it.
func (b *Breaker) Record(pm guard.Permit, o guard.Outcome) {
	p := b.cur.Load()
	if p == nil || !b.issued(p, pm.Token) || p.state == Open || p.state == ForcedOpen {
		b.ignored.Add(1)
		return
	}
	if p.state == HalfOpen && p.records.Add(1) > p.probes.Load() {
		p.records.Add(-1)
		b.ignored.Add(1) // more records than probes admitted: a Permit recorded twice
		return
	}
	if o.Err != nil || o.Abandoned {
		b.recordSlow(p, o, pm.Token)
		return
	}
	b.succeeded(p, b.slow(pm.Token))
}

// succeeded records a success in the period p, slow or not.
func (b *Breaker) succeeded(p *period, slow bool) {
	b.successes.Add(1)
	if slow {
		b.slowCalls.Add(1)
	}
	if p.consecutive.Load() != 0 {
		p.consecutive.Store(0)
	}
	switch {
	case p.state == HalfOpen:
		if slow { // a slow probe: the dependency is not back yet
			b.move(p, Open)
		} else if p.wins.Add(1) == b.cfg.successes {
			b.move(p, Closed)
		}
	case p.calls != nil:
		p.calls.add(false, slow)
		if slow && b.cfg.trips(p.calls.counts()) {
			b.move(p, Open)
		}
	case p.timed != nil:
		if t := addTimed(p.timed, false, slow, b.cfg.slow.after != 0); slow && b.cfg.trips(t) {
			b.move(p, Open)
		}
	}
}

// recordSlow records a call that did not simply succeed, admitted with
// token.
func (b *Breaker) recordSlow(p *period, o guard.Outcome, token uint64) {
	if o.Abandoned || guard.IsRefusal(o.Err) {
		b.neutral.Add(1)
		if p.state == HalfOpen {
			p.records.Add(-1)
			p.probes.Add(-1) // the probe's place is free again
		}
		return
	}
	slow := b.slow(token)
	if b.cfg.isFailure == nil || b.classify(p, o.Err, slow) {
		b.failed(p, slow)
		return
	}
	b.succeeded(p, slow)
}

// classify asks the classifier about err. If it panics, the call is
// recorded as a failure before the panic goes on.
func (b *Breaker) classify(p *period, err error, slow bool) bool {
	done := false
	defer func() {
		if !done {
			b.failed(p, slow)
		}
	}()
	failure := b.cfg.isFailure(err)
	done = true
	return failure
}

// failed records a failure in the period p, slow or not.
func (b *Breaker) failed(p *period, slow bool) {
	b.failures.Add(1)
	if slow {
		b.slowCalls.Add(1)
	}
	n := p.consecutive.Add(1)
	switch p.state {
	case HalfOpen:
		b.move(p, Open)
		return
	case ForcedClosed: // counted, never tripped
		return
	}
	var trip bool
	switch b.cfg.rule {
	case consecutiveRule:
		trip = n >= b.cfg.threshold
	case countRule:
		p.calls.add(true, slow)
		trip = b.cfg.trips(p.calls.counts())
	case timeRule:
		trip = b.cfg.trips(addTimed(p.timed, true, slow, b.cfg.slow.after != 0))
	}
	if trip {
		b.move(p, Open)
	}
}

// Run runs fn through the breaker: it is [guard.Run] with
// guard.Call{Attempt: 1}. It asks Allow, and if the call is admitted,
// calls fn with ctx and records how it ended. The call is abandoned, and
// counts as neither success nor failure, if ctx is done when fn returns.
// If fn panics, the call is recorded as a failure (the breaker counts
// [guard.ErrPanicked] as one) and the panic goes on. A ctx already done
// is refused before the breaker is asked, as guard.Run refuses one (see
// package guard).
//
// Run returns fn's error unchanged, or, without calling fn, the refusal:
// an error that matches [backoff.ErrRefused] and wraps Allow's error (an
// [*OpenError], which errors.Is matches to [ErrCircuitOpen], or the
// configuration error) or the cause of a ctx already done. A retry driver
// around Run therefore stops at a refusal at once. A nil ctx or fn is
// reported as an error matching backoff.ErrInvalidConfiguration.
func (b *Breaker) Run(ctx context.Context, fn func(context.Context) error) error {
	return guard.Run(ctx, b, guard.Call{Attempt: 1}, fn)
}
