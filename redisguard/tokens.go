package redisguard

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/redis/go-redis/v9"
)

// tokens is what a shared token bucket keeps besides a Budget's own.
type tokens struct {
	max   int64 // the capacity, in thousandths
	ratio int64 // a success's refill, in thousandths
	ttl   int64 // the key's TTL, in ms

	seen    atomic.Pointer[seenCount]
	pending atomic.Int64 // refunds owed to the shared count, in thousandths
}

// seenCount is the shared count a round trip saw, and when.
type seenCount struct {
	tokens int64
	at     time.Time
}

// The bits of a token bucket's Permit.Token besides localBit.
const (
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
	c := newConfig(budgetKind, "NewTokenBucket", name, opts)
	local, s := budget.NewTokenBucketFallback(c.budget...)
	b := &Budget{cfg: c, local: local}
	b.err = c.check(client, b.local)
	if b.err != nil {
		return b
	}
	c.isFailure, c.clock = s.IsFailure, s.Clock
	b.tokens = &tokens{max: s.MaxTokens, ratio: s.TokenRatio, ttl: millis(c.ttl)}
	b.link = newLink(client, tokensScript, c, c.key("tokens"))
	return b
}

// allowTokens asks the shared count about a retry: ok if it is admitted,
// shared false if Redis failed, and the local fallback is to decide.
func (b *Budget) allowTokens(ctx context.Context) (p guard.Permit, ok, shared bool) {
	t := b.tokens
	if s := t.seen.Load(); s != nil && 2*s.tokens <= t.max && t.pending.Load() == 0 &&
		b.cfg.clock.Now().Sub(s.at) < b.cfg.staleness {
		return guard.Permit{}, false, true
	}
	owed := t.pending.Swap(0)
	r, err := b.link.run(ctx, "a", t.max, owed, 0, t.ttl)
	if err != nil {
		t.pending.Add(owed)
		return guard.Permit{}, false, false
	}
	v, ok := b.see(r)
	if !ok {
		return guard.Permit{}, false, false
	}
	if v[0] != 1 {
		return guard.Permit{}, false, true
	}
	return guard.Permit{Token: chargedBit | uint64(v[1])&takenMask}, true, true
}

// see keeps the count of a script's reply {admitted, taken, count}.
func (b *Budget) see(r []any) ([]int64, bool) {
	v, ok := ints(r, 3)
	if !ok {
		b.link.failed(errReply)
		return nil, false
	}
	b.tokens.seen.Store(&seenCount{tokens: v[2], at: b.cfg.clock.Now()})
	return v, true
}

// record counts a call judged v.
func (b *Budget) record(p guard.Permit, v verdict) {
	t := b.tokens
	switch {
	case p.Token&localBit != 0:
		b.recordLocal(v)
		return
	case p.Token&chargedBit != 0:
		taken := int64(p.Token & takenMask)
		switch v {
		case success:
			t.pending.Add(taken + t.ratio)
		case neutral:
			t.pending.Add(taken)
		}
		return
	}
	var d int64
	switch v {
	case success:
		d = t.ratio
	case failure:
		d = -1000
	default:
		return
	}
	if !b.link.ready() {
		b.recordLocal(v)
		return
	}
	owed := t.pending.Swap(0)
	r, err := b.link.run(context.Background(), "r", t.max, owed, d, t.ttl)
	if err != nil {
		t.pending.Add(owed)
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

// stats fills in a token bucket's figures.
func (t *tokens) stats(s *BudgetStats) {
	s.Tokens = float64(t.max) / 1000
	s.Owed = float64(t.pending.Load()) / 1000
	if c := t.seen.Load(); c != nil {
		s.Tokens = float64(c.tokens) / 1000
	}
}
