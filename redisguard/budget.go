package redisguard

import (
	"context"
	"sync/atomic"

	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
)

// Budget is a retry budget that every instance of a service shares
// through Redis: gRPC's token bucket (NewTokenBucket) or Finagle's ratio
// of retries to requests (NewRatio), as package budget keeps them in one
// process, kept once for the fleet. It is a [guard.Guard] for the retry
// stage of a Policy, inside which it sees attempt numbers, and it refuses
// retries with [budget.ErrBudgetExhausted].
//
// A Budget is safe for concurrent use. Its zero value refuses every call
// with an error matching [backoff.ErrInvalidConfiguration]; make one with
// [NewTokenBucket] or [NewRatio].
type Budget struct {
	cfg   *config
	err   error
	link  *link
	local *budget.Budget

	tokens *tokens // NewTokenBucket's
	ratio  *ratio  // NewRatio's

	allowed atomic.Uint64
	refused atomic.Uint64
}

// localBit marks a Permit the local fallback admitted, in both guards.
const localBit = 1 << 63

// Validate reports why the Budget cannot be used: its first bad option,
// or client, or that it is a zero Budget. The error matches
// backoff.ErrInvalidConfiguration. policy.Guard calls it.
func (b *Budget) Validate() error {
	if b == nil || b.cfg == nil {
		return errZero
	}
	return b.err
}

// Allow admits a first attempt (c.Attempt 1 or less) always. A token
// bucket's makes no round trip; a ratio budget's counts the attempt, and
// sends what it counted when the last sending is WithStaleness old (see
// NewRatio). A retry costs one round trip, which decides on the shared
// state and charges the retry if admitted; it is refused with no round
// trip while the state this instance saw last, less than the staleness
// ago, allows none. When Redis fails or is slower than the timeout, the
// local fallback, a budget.NewTokenBucket or budget.NewRatio of the same
// configuration, decides instead (see the package documentation). A
// refused retry gets budget.ErrBudgetExhausted. Allow does not block
// beyond the timeout, and ctx's cancellation does not cut the round trip
// short. A nil ctx is refused with an error matching
// [backoff.ErrInvalidConfiguration], first attempts included.
func (b *Budget) Allow(ctx context.Context, c guard.Call) (guard.Permit, error) {
	if err := admissible(ctx, b); err != nil {
		return guard.Permit{}, err
	}
	if c.Attempt <= 1 {
		if b.ratio != nil {
			b.deposit(ctx)
		}
		return guard.Permit{}, nil
	}
	if !b.link.ready() {
		return b.allowLocal(ctx, c)
	}
	var p guard.Permit
	var ok, shared bool
	if b.tokens != nil {
		p, ok, shared = b.allowTokens(ctx)
	} else {
		ok, shared = b.allowRatio(ctx)
	}
	switch {
	case !shared:
		return b.allowLocal(ctx, c)
	case !ok:
		b.refused.Add(1)
		return guard.Permit{}, budget.ErrBudgetExhausted
	}
	b.allowed.Add(1)
	return p, nil
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

// Record reports how a call that Allow admitted ended. A token bucket
// counts it as NewTokenBucket says: the record of a first attempt is the
// call's one round trip, which sends a success's ratio or a failure's
// token (an abandoned call, an inner guard's refusal and an error
// budget.WithIsFailure does not count make none); the record of a retry
// makes none: its token was taken at Allow, and what a success or a
// neutral outcome gives back is sent with this instance's next round
// trip. When Redis fails, the local fallback counts the call instead. A
// ratio budget counted the call at Allow, as budget.NewRatio does, and
// Record does nothing.
func (b *Budget) Record(p guard.Permit, o guard.Outcome) {
	if b.Validate() != nil || b.tokens == nil {
		return
	}
	// An error budget.WithIsFailure does not count is neutral, and so is the
	// call when the classifier panics: its charge is refunded.
	b.record(p, judge(o, b.cfg.isFailure, neutral, neutral, func(v verdict) { b.record(p, v) }))
}

// BudgetStats are a Budget's figures, for telemetry, as this instance
// knows them.
type BudgetStats struct {
	// Tokens is a token bucket's shared count as this instance's last
	// round trip saw it, in [0, maxTokens]; maxTokens before the first;
	// 0 for a ratio budget.
	Tokens float64
	// Owed is the tokens a token bucket has yet to give back to the
	// shared count: the refunds of retries that succeeded or were
	// neutral, sent with its next round trip; 0 for a ratio budget.
	Owed float64
	// Requests and Retries are the first attempts and the admitted
	// retries of a ratio budget's shared window, as this instance's last
	// round trip saw them; 0 for a token bucket.
	Requests uint64
	Retries  uint64
	// Unsent is the first attempts a ratio budget counted and has yet to
	// send to the shared window, with its next round trip; 0 for a token
	// bucket.
	Unsent uint64
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
		Allowed: b.allowed.Load(),
		Refused: b.refused.Load(),
		Link:    b.link.stats(),
		Local:   b.local.Stats(),
	}
	if b.tokens != nil {
		b.tokens.stats(&s)
	} else {
		b.ratio.stats(&s)
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
