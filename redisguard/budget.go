package redisguard

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/fleet"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/redis/go-redis/v9"
)

// Budget is a retry budget that every instance of a service shares
// through Redis: gRPC's token bucket, as budget.NewTokenBucket keeps it in
// one process, kept once for the fleet. It is a [guard.Guard] for the
// retry stage of a Policy, inside which it sees attempt numbers, and it
// refuses retries with [budget.ErrBudgetExhausted].
//
// A Budget is safe for concurrent use. Its zero value refuses every call
// with an error matching [backoff.ErrInvalidConfiguration]; make one with
// [NewTokenBucket].
type Budget struct {
	cfg   *config
	err   error
	link  *link
	local *budget.Budget

	max   int64 // the capacity, in thousandths
	ratio int64 // a success's refill, in thousandths
	ttl   int64 // the key's TTL, in ms

	seen    atomic.Pointer[seenCount]
	pending atomic.Int64 // refunds owed to the shared count, in thousandths

	allowed atomic.Uint64
	refused atomic.Uint64
}

// seenCount is the shared count a round trip saw, and when.
type seenCount struct {
	tokens int64
	at     time.Time
}

// The bits of a Budget's Permit.Token.
const (
	localBit   = 1 << 63 // admitted by the local fallback
	chargedBit = 1 << 62 // a shared retry, charged when admitted
	takenMask  = 1<<20 - 1
)

// NewTokenBucket returns a Budget named name, shared through client by
// every instance that makes one with the same name and key prefix: its
// count lives in the key "backoff:{name}:tokens". It takes the options of
// budget.NewTokenBucket, given with WithBudget, with the same defaults and
// ranges, and those of every guard of this package (WithTimeout,
// WithRetryInterval, WithStaleness, WithTTL, WithKeyPrefix, WithOnFallback,
// WithOnRecover). Every instance of one budget must be given the same
// capacity and ratio.
//
// The rule is gRPC's: each failure takes a token, down to 0, and each
// success gives the ratio back, up to the capacity; a retry is admitted
// while the count is above half the capacity. One difference makes the
// fleet's limit hard: a retry is charged its token when it is admitted,
// not when it fails, and gets it back, with the ratio, if it succeeds. The
// count after the retry is recorded is gRPC's; in between, concurrent
// retries see it taken. So from a full bucket, in an outage, the whole
// fleet gets at most ⌈maxTokens/2⌉ retries, however many instances there
// are.
//
// client must honour the deadlines of contexts: a *redis.Client,
// *redis.ClusterClient or *redis.Ring whose options have
// ContextTimeoutEnabled false is an invalid configuration. NewTokenBucket
// makes no round trip. A bad client, name or option makes a Budget that
// refuses every call with its error, which Validate reports: each of them,
// joined, the options of package budget as budget.NewTokenBucket reports
// them.
func NewTokenBucket(client redis.Scripter, name string, opts ...Option) *Budget {
	c := newConfig(budgetKind, name, opts)
	b := &Budget{cfg: c, local: budget.NewTokenBucket(c.budget...)}
	s, _ := fleet.TakeTokenBucket(b.local)
	b.err = setting.Join(checkClient(client), c.nameErr, c.err, b.local.Validate())
	if b.err != nil {
		return b
	}
	c.isFailure, c.clock = s.IsFailure, s.Clock
	b.max, b.ratio, b.ttl = s.MaxTokens, s.TokenRatio, millis(c.ttl)
	b.link = newLink(client, budgetScript, c.key("tokens"), c)
	return b
}

// Validate reports why the Budget cannot be used: its first bad option,
// or client, or that it is a zero Budget. The error matches
// backoff.ErrInvalidConfiguration. policy.Guard calls it.
func (b *Budget) Validate() error {
	if b == nil || b.cfg == nil {
		return errZero
	}
	return b.err
}

// Allow admits a first attempt (c.Attempt 1 or less) always, with no
// round trip. A retry costs one round trip, which decides on the shared
// count and charges the retry if admitted; it is refused with no round
// trip while the count this instance saw last, less than the staleness
// ago, is spent. When Redis fails or is slower than the timeout, the local
// fallback, a budget.NewTokenBucket of the same configuration, decides
// instead (see the package documentation). A refused retry gets
// budget.ErrBudgetExhausted. Allow does not block beyond the timeout, and
// ctx's cancellation does not cut the round trip short. A nil ctx is
// refused with an error matching [backoff.ErrInvalidConfiguration], first
// attempts included.
func (b *Budget) Allow(ctx context.Context, c guard.Call) (guard.Permit, error) {
	if err := admissible(ctx, b); err != nil {
		return guard.Permit{}, err
	}
	if c.Attempt <= 1 {
		return guard.Permit{}, nil
	}
	if !b.link.ready() {
		return b.allowLocal(ctx, c)
	}
	if s := b.seen.Load(); s != nil && 2*s.tokens <= b.max && b.pending.Load() == 0 &&
		b.cfg.clock.Now().Sub(s.at) < b.cfg.staleness {
		b.refused.Add(1)
		return guard.Permit{}, budget.ErrBudgetExhausted
	}
	owed := b.pending.Swap(0)
	r, err := b.link.run(ctx, "a", b.max, owed, 0, b.ttl)
	if err != nil {
		b.pending.Add(owed)
		return b.allowLocal(ctx, c)
	}
	v, ok := b.see(r)
	if !ok {
		return b.allowLocal(ctx, c)
	}
	if v[0] != 1 {
		b.refused.Add(1)
		return guard.Permit{}, budget.ErrBudgetExhausted
	}
	b.allowed.Add(1)
	return guard.Permit{Token: chargedBit | uint64(v[1])&takenMask}, nil
}

// allowLocal asks the local fallback about a retry.
func (b *Budget) allowLocal(ctx context.Context, c guard.Call) (guard.Permit, error) {
	if _, err := b.local.Allow(ctx, c); err != nil {
		b.refused.Add(1)
		return guard.Permit{}, err
	}
	b.allowed.Add(1)
	return guard.Permit{Token: localBit}, nil
}

// see keeps the count of a script's reply {admitted, taken, count}.
func (b *Budget) see(r []any) ([]int64, bool) {
	v, ok := ints(r, 3)
	if !ok {
		b.link.failed(errReply)
		return nil, false
	}
	b.seen.Store(&seenCount{tokens: v[2], at: b.cfg.clock.Now()})
	return v, true
}

// Record reports how a call that Allow admitted ended, and counts it as
// NewTokenBucket says. The record of a first attempt is the call's one
// round trip: it sends a success's ratio or a failure's token (an
// abandoned call, an inner guard's refusal and an error budget.WithIsFailure does
// not count make none). The record of a retry makes none: its token was
// taken at Allow, and what a success or a neutral outcome gives back is
// sent with this instance's next round trip. When Redis fails, the local
// fallback counts the call instead.
func (b *Budget) Record(p guard.Permit, o guard.Outcome) {
	if b.Validate() != nil {
		return
	}
	// An error budget.WithIsFailure does not count is neutral, and so is the
	// call when the classifier panics: its charge is refunded.
	b.record(p, judge(o, b.cfg.isFailure, neutral, neutral, func(v verdict) { b.record(p, v) }))
}

// record counts a call judged v.
func (b *Budget) record(p guard.Permit, v verdict) {
	switch {
	case p.Token&localBit != 0:
		b.recordLocal(v)
		return
	case p.Token&chargedBit != 0:
		taken := int64(p.Token & takenMask)
		switch v {
		case success:
			b.pending.Add(taken + b.ratio)
		case neutral:
			b.pending.Add(taken)
		}
		return
	}
	var d int64
	switch v {
	case success:
		d = b.ratio
	case failure:
		d = -1000
	default:
		return
	}
	if !b.link.ready() {
		b.recordLocal(v)
		return
	}
	owed := b.pending.Swap(0)
	r, err := b.link.run(context.Background(), "r", b.max, owed, d, b.ttl)
	if err != nil {
		b.pending.Add(owed)
		b.recordLocal(v)
		return
	}
	b.see(r)
}

// recordLocal counts a call judged v in the local fallback.
func (b *Budget) recordLocal(v verdict) {
	switch v {
	case success:
		b.local.Record(guard.Permit{}, guard.Outcome{})
	case failure:
		b.local.Record(guard.Permit{}, guard.Outcome{Err: errCounted})
	}
}

// BudgetStats are a Budget's figures, for telemetry, as this instance
// knows them.
type BudgetStats struct {
	// Tokens is the shared count as this instance's last round trip saw
	// it, in [0, maxTokens]; maxTokens before the first.
	Tokens float64
	// Owed is the tokens this instance has yet to give back to the
	// shared count: the refunds of retries that succeeded or were
	// neutral, sent with its next round trip.
	Owed float64
	// Allowed and Refused count the retries this instance admitted and
	// refused, on the shared state or on the local fallback.
	Allowed uint64
	Refused uint64
	// Link is the figures of the way to Redis.
	Link Link
	// Local is the local fallback's own figures.
	Local budget.Stats
}

// Stats returns the Budget's figures. It makes no round trip. Each is read
// atomically, but not all at the same instant.
func (b *Budget) Stats() BudgetStats {
	if b.Validate() != nil {
		return BudgetStats{}
	}
	s := BudgetStats{
		Tokens:  float64(b.max) / 1000,
		Owed:    float64(b.pending.Load()) / 1000,
		Allowed: b.allowed.Load(),
		Refused: b.refused.Load(),
		Link:    b.link.stats(),
		Local:   b.local.Stats(),
	}
	if c := b.seen.Load(); c != nil {
		s.Tokens = float64(c.tokens) / 1000
	}
	return s
}

// Run runs fn under the Budget, as budget.Budget.Run does: it is
// [guard.Run] with guard.Call{Attempt: 1}, so outside a retry loop it only
// counts the call (a first attempt is always admitted). It asks Allow, and
// if admitted calls fn and tells Record how it ended, even if fn panics
// (recorded with [guard.ErrPanicked]; the panic then goes on). A call
// whose ctx is done when fn returns is recorded as abandoned; a ctx done
// already is refused before the Budget is asked, as guard.Run refuses one
// (see package guard). A refusal returns, without calling fn, an error
// that matches backoff.ErrRefused and wraps Allow's error. In a Policy,
// use policy.Guard instead, inside the retry stage, where the Budget sees
// each attempt's number. A nil ctx or fn is reported as an error matching
// backoff.ErrInvalidConfiguration.
func (b *Budget) Run(ctx context.Context, fn func(context.Context) error) error {
	return guard.Run(ctx, b, guard.Call{Attempt: 1}, fn)
}

// Fallback reports whether the budget decides on its local fallback
// now, Redis having failed it, and how many times it has turned to the
// fallback and back since it was made: Link.Shared, Link.Fallbacks and
// Link.Recoveries of Stats, read without the rest. It is what the
// ObserveShared methods of the telemetry modules read (otelbackoff's and
// prombackoff's). A Budget that cannot be used reports local and no
// counts.
func (b *Budget) Fallback() (local bool, fallbacks, recoveries uint64) {
	if b.Validate() != nil {
		return true, 0, 0
	}
	return b.link.fallback()
}
