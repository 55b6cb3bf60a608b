package budget

import (
	"context"
	"sync/atomic"

	"github.com/herdsafe/backoff/guard"
)

// A Budget admits every first attempt and refuses retries once its budget
// is spent: a token bucket (NewTokenBucket) or a ratio budget (NewRatio).
// It is a [guard.Guard] for the retry stage of a policy (policy.Guard),
// inside which it sees attempt numbers; see the package documentation.
//
// A Budget is safe for concurrent use, and is meant to be shared by every
// call to the same dependency. Its zero value is not a budget: it refuses
// every call with an error matching [backoff.ErrInvalidConfiguration].
type Budget struct {
	tokens *tokenBucket // NewTokenBucket
	ratio  *ratioBudget // NewRatio
	flight *inFlight    // NewInFlight
	err    error        // the configuration's error; then all are nil

	allowed atomic.Uint64
	refused atomic.Uint64
}

var (
	_ guard.Guard      = (*Budget)(nil)
	_ guard.Validator  = (*Budget)(nil)
	_ guard.Prechecker = (*Budget)(nil)
)

// NewTokenBucket returns a Budget that throttles retries as gRPC does
// (gRFC A6, "retryThrottling"): a count of tokens starts at maxTokens
// (WithMaxTokens, default 10); each failed attempt takes one token, down
// to 0, and each successful one gives tokenRatio back (WithTokenRatio,
// default 0.1), up to maxTokens; a retry is admitted only while the count
// is greater than maxTokens/2. With the defaults, from a full bucket, five
// failures in a row stop retries, and one success then resumes them.
//
// What counts: a call that returned nil gives tokens; an error takes one
// if WithIsFailure's classifier says it is a failure (by default every
// error is); an abandoned call (Outcome.Abandoned), even one that returned
// nil, and an inner guard's refusal count neither way. A refused retry is
// not a call and counts nothing.
//
// A bad option (see Option) makes a Budget that refuses every call with
// its error, which Validate reports.
func NewTokenBucket(opts ...Option) *Budget {
	c := newConfig(kindTokens, opts)
	if c.err != nil {
		return &Budget{err: c.err}
	}
	return &Budget{tokens: newTokenBucket(c)}
}

// NewRatio returns a Budget that admits, over a sliding window of time
// (WithWindow, default 10 s, measured on WithClock's clock), at most a
// reserve of retries (WithMinRetriesPerSecond, default 10 per second of
// the window) plus a fraction of the first attempts it saw in the window
// (WithRetryRatio, default 0.2). It counts requests and retries, not how
// calls end: a first attempt is a deposit, a retry a withdrawal, and a
// refused retry neither.
//
// This is Finagle's RetryBudget (ttl, minRetriesPerSec, percentCanRetry),
// adapted: the window is ten slots of a tenth of its length on the
// library's clock, where Finagle's is a windowed adder on its own; the
// ratio is applied exactly (with 0.3, 10 requests allow 3 retries), where
// Finagle's integer token costs round it; and the window may be any length
// from MinWindow, where Finagle requires 1 s to 60 s. Envoy's retry_budget
// has the same 20% but caps the retries in flight, not those of a time
// window.
//
// A bad option (see Option) makes a Budget that refuses every call with
// its error, which Validate reports.
func NewRatio(opts ...Option) *Budget {
	c := newConfig(kindRatio, opts)
	if c.err != nil {
		return &Budget{err: c.err}
	}
	return &Budget{ratio: newRatioBudget(c)}
}

// NewInFlight returns a Budget that admits a retry while the retries in
// flight, with it, are at most a fraction of all the calls in flight
// through it (WithInFlightRatio, default 0.2), or a minimum
// (WithMinRetryConcurrency, default 3), whichever is more. It counts what
// is in flight, not what happened: a call is in flight from Allow to
// Record, first attempts and retries alike, and a refused retry is not.
// Its limit follows the load at once, with no window and no clock: a
// client with 100 calls in flight may have 20 retries in flight; a quiet
// one, 3.
//
// This is Envoy's retry_budget (a cluster's circuit breaker thresholds:
// budget_percent, default 20%, and min_retry_concurrency, default 3),
// which Istio exposes as retryBudget; failsafe-go's budget has the same
// shape. Prefer it to NewRatio where calls are long or their rate swings,
// so that the retries a client may send follow what is in flight now
// rather than the requests of the last seconds; prefer NewRatio or
// NewTokenBucket for short calls, where few are ever in flight and the
// minimum would allow every retry.
//
// It must see every call it limits: first attempts too, inside the retry
// stage (as policy.Guard puts it), and it counts a call until Record,
// so a call admitted and never recorded holds its place for good. Package
// hedge asks its budget (hedge.WithBudget) for the hedged attempts only,
// never for the first: there an in-flight budget counts only hedges, and
// its minimum is the most hedges in flight at once. A bad
// option (see Option) makes a Budget that refuses every call with its
// error, which Validate reports.
func NewInFlight(opts ...Option) *Budget {
	c := newConfig(kindInFlight, opts)
	if c.err != nil {
		return &Budget{err: c.err}
	}
	return &Budget{flight: newInFlight(c)}
}

// Validate reports the Budget's configuration error, if it has one: an
// error matching backoff.ErrInvalidConfiguration that names the option.
// It makes the Budget a [guard.Validator]: policy.Guard calls it, so that
// a Policy with a bad Budget fails before it runs anything.
func (b *Budget) Validate() error {
	if b == nil || (b.err == nil && b.tokens == nil && b.ratio == nil && b.flight == nil) {
		return errZero
	}
	return b.err
}

// Allow admits a first attempt (c.Attempt 1 or less) always, and a retry
// if the budget allows one; otherwise it returns ErrBudgetExhausted. A
// misconfigured Budget refuses every call with its configuration error.
// Allow never blocks, and reads nothing of ctx, but a nil ctx is refused
// with an error matching [backoff.ErrInvalidConfiguration], as every
// guard of this module refuses it. An admitted call must be reported to
// Record.
func (b *Budget) Allow(ctx context.Context, c guard.Call) (guard.Permit, error) {
	if ctx == nil {
		return guard.Permit{}, errNilContext
	}
	if b == nil || (b.tokens == nil && b.ratio == nil && b.flight == nil) {
		return guard.Permit{}, b.Validate()
	}
	if c.Attempt <= 1 {
		switch {
		case b.ratio != nil:
			b.ratio.deposit()
		case b.flight != nil:
			b.flight.start()
		}
		return guard.Permit{}, nil
	}
	var ok bool
	switch {
	case b.tokens != nil:
		ok = b.tokens.allowRetry()
	case b.ratio != nil:
		ok = b.ratio.withdraw()
	default:
		ok = b.flight.retry()
	}
	if !ok {
		b.refused.Add(1)
		return guard.Permit{}, ErrBudgetExhausted
	}
	b.allowed.Add(1)
	return guard.Permit{Token: permitRetry}, nil
}

// permitRetry is the Permit.Token of an admitted retry.
const permitRetry = 1

// Precheck refuses a retry (c.Attempt above 1) of a token bucket with
// ErrBudgetExhausted, counting the refusal, if the bucket holds too few
// tokens for it now; it returns nil, and takes nothing, otherwise, for a
// first attempt, and for a ratio budget. It makes the Budget a
// [guard.Prechecker]: a retry stage of package policy asks it before the
// wait for a retry, so that a spent token bucket refuses the retry at once
// rather than after the wait, as gRFC A6 decides on "no retry" when the
// failure arrives: its count changes only with the calls recorded, not
// with time, so the wait could not change the answer (unless other calls
// succeed meanwhile, whose tokens the next failure will find). A ratio
// budget's window slides with time, and a wait of a tenth of the window
// may free a retry it refuses now, so it is asked after the wait, by
// Allow. A misconfigured Budget returns nil: Allow reports its error.
func (b *Budget) Precheck(c guard.Call) error {
	if b == nil || c.Attempt <= 1 || b.tokens == nil || b.tokens.allowRetry() {
		return nil
	}
	b.refused.Add(1)
	return ErrBudgetExhausted
}

// Record reports how a call that Allow admitted ended. A token bucket
// counts it as NewTokenBucket says, calling WithIsFailure's classifier for
// an error; a ratio budget counted the call at Allow and does nothing; an
// in-flight budget counts it out of the calls in flight, however it
// ended.
func (b *Budget) Record(p guard.Permit, o guard.Outcome) {
	switch {
	case b == nil:
	case b.tokens != nil:
		b.tokens.record(o)
	case b.flight != nil:
		b.flight.end(p.Token == permitRetry)
	}
}

// Run runs fn under the Budget as a first attempt: it is [guard.Run] with
// guard.Call{Attempt: 1}. It asks Allow, and if admitted calls fn and
// tells Record how it ended, even if fn panics (the panic then goes on);
// a call whose ctx is done when fn returns is recorded as abandoned; a ctx
// done already is refused before the Budget is asked, as guard.Run
// refuses one (see package guard). A first attempt is always admitted, so Run refuses nothing but for a
// misconfigured Budget (an error that matches [backoff.ErrRefused] and
// wraps the configuration error); it only counts the call.
//
// A retry loop of your own that the Budget should limit calls guard.Run
// with the number of each attempt instead, counted in its closure. A
// retry the Budget refuses then returns an error that matches
// [backoff.ErrRefused] and wraps ErrBudgetExhausted, which stops a retry
// driver around it at once, with that error as its Cause. In a policy,
// put the Budget inside the retry stage with policy.Guard, which passes
// the attempt numbers itself.
func (b *Budget) Run(ctx context.Context, fn func(context.Context) error) error {
	return guard.Run(ctx, b, guard.Call{Attempt: 1}, fn)
}

// Stats are a Budget's counts, for telemetry.
type Stats struct {
	// Tokens is a token bucket's count of tokens, in [0, maxTokens]; 0
	// for a ratio budget.
	Tokens float64
	// Requests and Retries are the first attempts and the admitted
	// retries in a ratio budget's window now; for an in-flight budget,
	// the calls (retries included) and the retries in flight now; 0 for a
	// token bucket.
	Requests uint64
	Retries  uint64
	// Allowed and Refused count the retries admitted and refused since
	// the Budget was made.
	Allowed uint64
	Refused uint64
}

// Stats returns the Budget's counts. Each is read atomically, but not all
// at the same instant: under concurrent calls they may disagree slightly.
// A ratio budget reads its clock.
func (b *Budget) Stats() Stats {
	if b == nil {
		return Stats{}
	}
	s := Stats{Allowed: b.allowed.Load(), Refused: b.refused.Load()}
	switch {
	case b.tokens != nil:
		s.Tokens = b.tokens.count()
	case b.ratio != nil:
		e := b.ratio.w.Epoch()
		s.Requests = b.ratio.w.Count(e, requests)
		s.Retries = b.ratio.w.Count(e, retries)
	case b.flight != nil:
		s.Requests = uint64(max(b.flight.calls.Load(), 0))
		s.Retries = uint64(max(b.flight.retries.Load(), 0))
	}
	return s
}
