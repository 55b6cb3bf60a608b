package redisguard

import (
	"context"
	"math"
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/redis/go-redis/v9"
)

// ratio is what a shared ratio budget keeps besides a Budget's own.
type ratio struct {
	width   int64  // a slot of the window, in µs
	reserve uint64 // the retries a window allows whatever the traffic
	ratio   uint64 // the retries allowed per million first attempts
	ttl     int64  // the key's TTL, in ms

	seen   atomic.Pointer[seenWindow]
	unsent atomic.Int64 // first attempts counted and not sent yet
	since  atomic.Int64 // when the first of them was, in Unix ns of the clock
	sendAt atomic.Int64 // when they are sent, in Unix ns of the clock
}

// seenWindow is the shared window a round trip saw, and when.
type seenWindow struct {
	requests, retries uint64
	at                time.Time
}

// NewRatio returns a Budget named name, shared through client by every
// instance that makes one with the same name and key prefix: the ratio
// budget of budget.NewRatio, Finagle's RetryBudget, kept once for the
// fleet, so that the retries of the whole fleet are a fraction of its
// requests. Its window lives in the hash "backoff:{name}:ratio". It takes
// the options of budget.NewRatio, given with WithBudget, with the same
// defaults and ranges (budget.WithWindow, budget.WithMinRetriesPerSecond,
// budget.WithRetryRatio, budget.WithClock), and those of every guard of
// this package (WithTimeout, WithRetryInterval, WithStaleness, WithTTL,
// WithKeyPrefix, WithOnFallback, WithOnRecover). Every instance of one
// budget must be given the same window, reserve and ratio.
// budget.WithWindowOffset is refused, as an invalid configuration: the
// fleet's window is laid out on the server's clock, and an offset would
// move only the local fallback's.
//
// The rule is budget.NewRatio's, over the fleet: over a sliding window of
// time, kept as ten slots of a tenth of it on the Redis server's clock
// (TIME, so that instances whose clocks disagree share one window;
// durations finer than a microsecond are cut), a retry is admitted while
// the fleet's retries in the window are fewer than the reserve
// (budget.WithMinRetriesPerSecond times the window's seconds, rounded
// down) plus budget.WithRetryRatio's fraction of the fleet's first
// attempts in it. A retry is counted when it is admitted, on the server,
// so the fleet's limit is hard: concurrent retries of all the instances
// cannot overdraw it.
//
// First attempts cost no round trip of their own: an instance counts them
// and sends the count with its next round trip, which a first attempt
// makes itself when the last sending is WithStaleness old (0: every first
// attempt makes one), and a busy instance makes about one round trip per
// staleness period for its first attempts, whatever its traffic. The count
// goes with how long ago the first of them was made, measured on the
// instance's clock, and counts in the slot of that time on the server's
// clock (or not at all if that slot has left the window). A round trip that fails drops the count it carried: the
// window forgets those first attempts rather than count them twice. The
// local fallback counts the first attempts of the time it decides, from an
// empty window.
//
// client must honour the deadlines of contexts, as for NewTokenBucket.
// NewRatio makes no round trip. A bad client, name or option makes a
// Budget that refuses every call with its error, which Validate reports:
// each of them, joined, the options of package budget as budget.NewRatio
// reports them.
func NewRatio(client redis.Scripter, name string, opts ...Option) *Budget {
	c := newConfig(budgetKind, "NewRatio", name, opts)
	local, s := budget.NewRatioFallback(c.budget...)
	b := &Budget{cfg: c, local: local}
	var offsetErr error
	if s.Offset != 0 {
		offsetErr = settings.Invalid("NewRatio: WithBudget was given budget.WithWindowOffset(%v), which a shared ratio budget cannot use: its window is the fleet's, laid out on Redis's clock, and an offset would move only the local fallback's", s.Offset)
	}
	b.err = c.check(client, b.local, offsetErr)
	if b.err != nil {
		return b
	}
	c.clock = s.Clock
	b.ratio = &ratio{
		width:   max((s.Window / 10).Microseconds(), 1),
		reserve: s.Reserve,
		ratio:   s.Ratio,
		ttl:     millis(c.ttl + s.Window),
	}
	b.link = newLink(client, ratioScript, c, c.key("ratio"))
	return b
}

// deposit counts a first attempt, and sends the count if it is due.
func (b *Budget) deposit(ctx context.Context) {
	r := b.ratio
	if !b.link.ready() {
		_, _ = b.local.Allow(ctx, firstAttempt)
		return
	}
	now := b.cfg.clock.Now()
	if r.unsent.Add(1) == 1 {
		r.since.Store(now.UnixNano())
	}
	if !b.link.local.Load() && !r.due(now, b.cfg.staleness) {
		return
	}
	if _, ok := b.sendRatio(ctx, "d"); !ok {
		_, _ = b.local.Allow(ctx, firstAttempt) // the fallback counts the call that found Redis failed
	}
}

// firstAttempt is the Call of a first attempt.
var firstAttempt = guard.Call{Attempt: 1}

// due reports whether the first attempts counted are to be sent now, the
// last sending being the staleness old, and if so claims the sending, so
// that one of concurrent callers makes it.
func (r *ratio) due(now time.Time, staleness time.Duration) bool {
	at := r.sendAt.Load()
	if now.UnixNano() < at {
		return false
	}
	return r.sendAt.CompareAndSwap(at, now.Add(staleness).UnixNano())
}

// allowRatio asks the shared window about a retry: ok if it is admitted,
// shared false if Redis failed, and the local fallback is to decide. A
// retry is refused with no round trip while the window seen last, less
// than the staleness ago, would refuse it even with the first attempts
// not yet sent.
func (b *Budget) allowRatio(ctx context.Context) (ok, shared bool) {
	r := b.ratio
	if s := r.seen.Load(); s != nil && b.cfg.clock.Now().Sub(s.at) < b.cfg.staleness &&
		s.retries >= r.allowance(s.requests+uint64(max(r.unsent.Load(), 0))) {
		return false, true
	}
	admitted, ok := b.sendRatio(ctx, "a")
	return admitted, ok
}

// sendRatio runs the step op with the first attempts counted, and keeps
// the window it saw. ok is false if the round trip failed.
func (b *Budget) sendRatio(ctx context.Context, op string) (admitted, ok bool) {
	r := b.ratio
	n := r.unsent.Swap(0)
	var age int64
	if n > 0 {
		age = max(b.cfg.clock.Now().UnixNano()-r.since.Load(), 0) / 1000
	}
	reply, err := b.link.run(ctx, op, r.width, r.reserve, r.ratio, r.ttl, b.cfg.serverShift(), n, age)
	if err != nil {
		return false, false
	}
	v, ok := ints(reply, 3)
	if !ok {
		b.link.failed(errReply)
		return false, false
	}
	now := b.cfg.clock.Now()
	r.sendAt.Store(now.Add(b.cfg.staleness).UnixNano())
	r.seen.Store(&seenWindow{requests: uint64(max(v[1], 0)), retries: uint64(max(v[2], 0)), at: now})
	return v[0] == 1, true
}

// allowance returns the retries a window with n first attempts allows,
// as the script computes it: the reserve plus n times the ratio, rounded
// down.
func (r *ratio) allowance(n uint64) uint64 {
	hi, lo := n/1_000_000, n%1_000_000
	h1, h0 := bits.Mul64(hi, r.ratio)
	a, c1 := bits.Add64(h0, lo*r.ratio/1_000_000, 0)
	a, c2 := bits.Add64(a, r.reserve, 0)
	if h1 != 0 || c1 != 0 || c2 != 0 {
		return math.MaxUint64
	}
	return a
}

// stats fills in a ratio budget's figures.
func (r *ratio) stats(s *BudgetStats) {
	s.Unsent = uint64(max(r.unsent.Load(), 0))
	if w := r.seen.Load(); w != nil {
		s.Requests, s.Retries = w.requests, w.retries
	}
}
