package budget

import (
	"math"
	"sync/atomic"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
)

// milli is the scale of a token bucket's count: gRPC supports three
// decimal places of tokenRatio, so the count is kept in thousandths of a
// token, as an integer, exactly.
const milli = 1000

// tokenBucket is gRPC's retry throttling: a count of tokens, in
// thousandths, that failures take from and successes give back to.
type tokenBucket struct {
	tokens  atomic.Int64 // in [0, max]
	max     int64
	ratio   int64
	failure func(error) bool // nil: every error
	clock   clock.Clock      // WithClock's, which the bucket does not read: for a fleet-wide one (NewTokenBucketFallback)
}

// newTokenBucket returns the token bucket of c, full.
func newTokenBucket(c *config) *tokenBucket {
	t := &tokenBucket{
		max:     thousandths(c.maxTokens),
		ratio:   thousandths(c.tokenRatio),
		failure: c.isFailure,
		clock:   c.clock,
	}
	t.tokens.Store(t.max)
	return t
}

// thousandths returns v in thousandths, the digits beyond dropped, as gRPC
// ignores them. The options keep v in [0.001, 1e9].
func thousandths(v float64) int64 {
	// The small excess makes a figure such as 0.3, which float64 holds as
	// 0.29999..., count as the 300 thousandths it was written as.
	return int64(math.Floor(v*milli + 1e-6))
}

// allowRetry reports whether the count is above half of the capacity.
func (t *tokenBucket) allowRetry() bool {
	return 2*t.tokens.Load() > t.max
}

// record counts how an admitted call ended. A success on a full bucket
// writes nothing, so that the success path of a healthy dependency is one
// atomic load.
func (t *tokenBucket) record(o guard.Outcome) {
	switch {
	case o.Abandoned:
	case o.Err == nil:
		t.give()
	case guard.IsRefusal(o.Err):
	case t.failure == nil || t.failure(o.Err):
		t.take()
	}
}

// give adds the ratio to the count, up to the capacity.
func (t *tokenBucket) give() {
	for {
		old := t.tokens.Load()
		if old >= t.max {
			return
		}
		if t.tokens.CompareAndSwap(old, min(old+t.ratio, t.max)) {
			return
		}
	}
}

// take takes a token from the count, down to 0.
func (t *tokenBucket) take() {
	for {
		old := t.tokens.Load()
		if old <= 0 {
			return
		}
		if t.tokens.CompareAndSwap(old, max(old-milli, 0)) {
			return
		}
	}
}

// count returns the count in tokens.
func (t *tokenBucket) count() float64 {
	return float64(t.tokens.Load()) / milli
}
