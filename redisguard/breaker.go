package redisguard

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/fleet"
	"github.com/redis/go-redis/v9"
)

// Breaker is a circuit breaker that every instance of a service shares
// through Redis: breaker.New's closed, open and half-open cycle with its
// trip rule (failures in a row, or a failure rate over the last calls or
// over a period, with or without slow calls), kept once for the fleet, so
// that the fleet's failures trip it and the fleet's probes,
// breaker.WithHalfOpen's number in all, test the dependency. It is a
// [guard.Guard], and refuses calls with a [*breaker.OpenError], which
// matches [breaker.ErrCircuitOpen].
//
// A Breaker is safe for concurrent use. Its zero value refuses every call
// with an error matching [backoff.ErrInvalidConfiguration]; make one with
// [NewBreaker].
type Breaker struct {
	cfg   *config
	err   error
	link  *link
	local *breaker.Breaker
	rule  fleet.Breaker // the local fallback's settings
	base  time.Time     // the clock's reading at NewBreaker, from which slow calls are timed

	args [12]any // the script's ARGV 2 to 13, fixed

	view atomic.Pointer[view]
	owed owed

	successes   atomic.Uint64
	failures    atomic.Uint64
	neutral     atomic.Uint64
	ignored     atomic.Uint64
	rejections  atomic.Uint64
	transitions atomic.Uint64
	slowCalls   atomic.Uint64
}

// NewBreaker returns a Breaker named name, shared through client by every
// instance that makes one with the same name and key prefix: its state
// lives in the hash "backoff:{name}:breaker", and the window of a
// failure-rate rule in "backoff:{name}:window". It takes the options of
// breaker.New that a fleet can share, given with WithBreaker, with the same
// defaults and ranges; WithProbeTimeout; and those of every guard of this
// package (WithTimeout, WithRetryInterval, WithStaleness, WithTTL,
// WithKeyPrefix, WithOnFallback, WithOnRecover). The growing open duration
// (breaker.WithOpenBackOff) is not supported, and nor are the manual
// controls of package breaker (ForceOpen, ForceClosed and Reset return an
// invalid configuration). Every instance of one breaker must be given the
// same configuration.
//
// client must honour the deadlines of contexts, as for NewTokenBucket.
// NewBreaker makes no round trip. A bad client, name or option makes a
// Breaker that refuses every call with its error, which Validate reports:
// each of them, joined, the options of package breaker as breaker.New
// reports them.
func NewBreaker(client redis.Scripter, name string, opts ...Option) *Breaker {
	c := newConfig(breakerKind, "NewBreaker", name, opts)
	local, s := breaker.NewFleetFallback(c.breaker...)
	b := &Breaker{cfg: c, local: local}
	var unshared error
	if s.Unshared != "" {
		unshared = settings.Invalid("WithBreaker was given breaker.%s, which a shared breaker does not support", s.Unshared)
	}
	b.err = c.check(client, b.local, unshared)
	if b.err != nil {
		return b
	}
	c.isFailure, c.onChange, c.clock = s.IsFailure, s.OnChange, s.Clock
	b.rule, b.base = s, s.Clock.Now()
	ttl := c.ttl + s.Open + c.probeTimeout + s.Period
	size := int64(s.Calls)
	if s.Rule == fleet.RateOverTime {
		size = max((s.Period / 10).Microseconds(), 1)
	}
	var slowRate float64
	if s.SlowAfter > 0 {
		slowRate = s.SlowRate
	}
	b.args = [12]any{s.Rule, s.Threshold, s.Open.Microseconds(), s.Probes, s.Successes,
		c.probeTimeout.Microseconds(), millis(ttl), 0, s.Rate, s.MinCalls, size, slowRate}
	b.link = newLink(client, breakerScript, c, c.key("breaker"), c.key("window"))
	return b
}

// Validate reports why the Breaker cannot be used: its first bad option,
// or client, or that it is a zero Breaker. The error matches
// backoff.ErrInvalidConfiguration. policy.Guard calls it.
func (b *Breaker) Validate() error {
	if b == nil || b.cfg == nil {
		return errZero
	}
	return b.err
}

// Allow asks the shared breaker to admit a call, as a [guard.Guard].
// While the state this instance's last round trip saw is closed and
// younger than the staleness (WithStaleness), Allow admits the call with
// no round trip (with failures in a row, unless an outcome is owed);
// while it is open, Allow refuses the call with no round trip until the
// open duration it was told of has passed. Otherwise Allow makes one
// round trip, which sends what this instance owes, decides on the shared
// state, and turns it half-open when its open duration has passed;
// half-open, the fleet admits breaker.WithHalfOpen's probes in all. A
// refusal is an [*breaker.OpenError]. With breaker.WithSlowCalls, Allow
// reads the clock once, to time the call.
//
// When Redis fails or is slower than the timeout, the local fallback, a
// breaker.New of the same configuration, decides instead (see the package
// documentation). Allow does not block beyond the timeout, and ctx's
// cancellation does not cut the round trip short. An admitted call must be
// followed by exactly one Record with the Permit. A nil ctx is refused with
// an error matching [backoff.ErrInvalidConfiguration], with no round trip.
func (b *Breaker) Allow(ctx context.Context, c guard.Call) (guard.Permit, error) {
	if err := admissible(ctx, b); err != nil {
		return guard.Permit{}, err
	}
	if !b.link.ready() {
		return b.allowLocal(ctx, c)
	}
	if v := b.view.Load(); v != nil && (b.rated() || !b.owed.any.Load()) {
		now := b.cfg.clock.Now()
		switch {
		case v.state == breaker.Closed:
			if now.Sub(v.at) < b.cfg.staleness {
				return guard.Permit{Token: b.token(v.gen, now)}, nil
			}
		case v.state == breaker.Open:
			if wait := v.until.Sub(now); wait > 0 {
				b.rejections.Add(1)
				return guard.Permit{}, &breaker.OpenError{State: breaker.Open, Duration: wait}
			}
		case v.full && now.Sub(v.at) < b.cfg.staleness:
			b.rejections.Add(1)
			return guard.Permit{}, &breaker.OpenError{State: breaker.HalfOpen}
		}
	}
	r, err := b.link.run(ctx, b.argv("a", 0, neutral, false)...)
	if err != nil {
		return b.allowLocal(ctx, c)
	}
	v, ok := b.see(r)
	if !ok {
		return b.allowLocal(ctx, c)
	}
	if v.admitted {
		t := b.token(v.gen, b.cfg.clock.Now()) | paidBit
		if v.probe {
			t |= probeBit
		}
		return guard.Permit{Token: t}, nil
	}
	b.rejections.Add(1)
	return guard.Permit{}, &breaker.OpenError{State: v.state, Duration: v.wait}
}

// allowLocal asks the local fallback.
func (b *Breaker) allowLocal(ctx context.Context, c guard.Call) (guard.Permit, error) {
	p, err := b.local.Allow(ctx, c)
	if err != nil {
		b.rejections.Add(1)
		return guard.Permit{}, err
	}
	return guard.Permit{Token: p.Token | localBit}, nil
}

// argv returns the script's arguments for the step op, with what this
// instance owes, and the record of gen judged v, slow or not.
func (b *Breaker) argv(op string, gen uint64, v verdict, slow bool) []any {
	o := b.owed.take(b.cfg.clock)
	a := make([]any, 0, 23)
	a = append(a, op)
	a = append(a, b.args[:]...)
	a[8] = b.cfg.serverShift()
	a = append(a, o.gen, o.fails, o.slowFails, o.oks, o.slowOks, o.reset, o.age, gen, uint8(v), bit(slow))
	return a
}

// bit is 1 for true, 0 for false.
func bit(on bool) uint8 {
	if on {
		return 1
	}
	return 0
}

// Record tells the shared breaker how a call that Allow admitted ended, as
// a [guard.Guard]: a success, a failure (an error breaker.WithIsFailure
// counts; by default any), or neither (an abandoned call, an inner guard's
// refusal); with breaker.WithSlowCalls, a success or a failure that took
// longer than its duration, from Allow to Record on the breaker's clock,
// is also slow. A record of a call admitted before the last change of
// state this instance saw counts for nothing.
//
// With failures in a row, another call's record makes a round trip for a
// failure, and for a success when the count of failures in a row it saw
// is not 0, unless its Allow made one already: then the outcome is owed,
// and sent with this instance's next round trip (the next Allow makes one
// while anything is owed), so that the call costs one round trip, not
// two. With a failure rate, every outcome counts in the window, and every
// one is owed: sent with the round trip of the next Allow that finds the
// state it saw stale, so that a healthy instance makes about one round
// trip per staleness period, whatever its traffic and the failures below
// the rate. Two records are sent at once, so that the fleet learns of
// them without delay: a probe's, and a failure or slow call that may trip
// the breaker by the counts this instance knows (those its last round
// trip saw and those it owes). When Redis fails, the local fallback counts
// the call instead.
func (b *Breaker) Record(p guard.Permit, o guard.Outcome) {
	if b.Validate() != nil {
		return
	}
	// An error breaker.WithIsFailure does not count is a success, as for
	// breaker.New; a call whose classifier panics is a failure.
	b.record(p, judge(o, b.cfg.isFailure, success, failure, func(v verdict) { b.record(p, v) }))
}

// record records a call judged v.
func (b *Breaker) record(p guard.Permit, v verdict) {
	if p.Token&localBit != 0 {
		b.count(v, false)
		b.local.Record(guard.Permit{Token: p.Token &^ localBit}, localOutcome(v))
		return
	}
	tag := p.Token >> genShift & genMod
	cur := b.view.Load()
	if tag == 0 || cur == nil {
		b.ignored.Add(1)
		return
	}
	gen := genOf(tag, cur.gen)
	if cur.gen != gen && p.Token&probeBit == 0 {
		b.ignored.Add(1)
		return
	}
	slow := v != neutral && b.slow(p.Token)
	b.count(v, slow)
	if p.Token&probeBit == 0 {
		if v == neutral || b.owe(cur, gen, v, slow, p.Token&paidBit != 0) {
			return
		}
	}
	if !b.link.ready() {
		b.feedLocal(v)
		return
	}
	r, err := b.link.run(context.Background(), b.argv("r", gen, v, slow)...)
	if err != nil {
		b.feedLocal(v)
		return
	}
	if rp, ok := b.see(r); ok && rp.ignored {
		b.uncount(v, slow)
		b.ignored.Add(1)
	}
}

// feedLocal counts a call the shared state admitted in the local
// fallback, Redis having failed since: the fallback admits it as its own
// call if it would, and records it, so that it learns of the failures
// that came just before it took over.
func (b *Breaker) feedLocal(v verdict) {
	if v == neutral {
		return
	}
	if p, err := b.local.Allow(context.Background(), guard.Call{Attempt: 1}); err == nil {
		b.local.Record(p, localOutcome(v))
	}
}

// localOutcome is the outcome the local fallback counts as v.
func localOutcome(v verdict) guard.Outcome {
	switch v {
	case success:
		return guard.Outcome{}
	case failure:
		return guard.Outcome{Err: errCounted}
	}
	return guard.Outcome{Abandoned: true}
}

// Run runs fn through the Breaker, as breaker.Breaker.Run does: it is
// [guard.Run] with guard.Call{Attempt: 1}. It returns, without calling fn,
// a refusal: an error that matches backoff.ErrRefused and wraps Allow's
// error (an [*breaker.OpenError], which errors.Is matches to
// breaker.ErrCircuitOpen, or the configuration error), or, for a ctx done
// already, its cause, before the Breaker is asked, as guard.Run refuses
// one (see package guard). Otherwise it calls fn and records how it ended,
// even if fn panics (recorded with [guard.ErrPanicked], a failure unless
// breaker.WithIsFailure says otherwise; the panic then goes on). A call
// whose ctx is done when fn returns is abandoned, and counts as neither
// success nor failure. A nil ctx or fn is reported as an error matching
// backoff.ErrInvalidConfiguration.
func (b *Breaker) Run(ctx context.Context, fn func(context.Context) error) error {
	return guard.Run(ctx, b, guard.Call{Attempt: 1}, fn)
}

// Fallback reports whether the breaker decides on its local fallback
// now, Redis having failed it, and how many times it has turned to the
// fallback and back since it was made: Link.Shared, Link.Fallbacks and
// Link.Recoveries of Stats, read without the rest. It is what the
// ObserveShared methods of the telemetry modules read (otelbackoff's and
// prombackoff's). A Breaker that cannot be used reports local and no
// counts.
func (b *Breaker) Fallback() (local bool, fallbacks, recoveries uint64) {
	if b.Validate() != nil {
		return true, 0, 0
	}
	return b.link.fallback()
}
