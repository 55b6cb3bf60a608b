package pushback

import (
	"errors"
	"math"
	"time"

	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/throttle"
)

// hint returns the wait the state of g asks for after it refused a call
// with refusal, before the spread: base at least, saturating at the
// largest Duration (see the package documentation).
func hint(g guard.Guard, refusal error, base time.Duration) time.Duration {
	if d, _ := named(refusal); d > 0 {
		return max(d, base)
	}
	return scale(base, load(g, refusal))
}

// retryAfterer is a refusal that names its own wait.
type retryAfterer interface{ RetryAfter() time.Duration }

// named returns the wait named by the first error in err's chain that has
// a RetryAfter method, as errors.As would find it but without an
// allocation, and whether there is one.
func named(err error) (time.Duration, bool) {
	for err != nil {
		if ra, ok := err.(retryAfterer); ok {
			return ra.RetryAfter(), true
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range x.Unwrap() {
				if d, ok := named(inner); ok {
					return d, true
				}
			}
			return 0, false
		default:
			return 0, false
		}
	}
	return 0, false
}

// load returns how many times the base the state of g asks for, after it
// refused a call with refusal: 1 for a guard whose state tells nothing
// more.
func load(g guard.Guard, refusal error) float64 {
	switch g := g.(type) {
	case *bulkhead.Bulkhead:
		if errors.Is(refusal, bulkhead.ErrBulkheadFull) {
			st := g.Stats()
			return demand(st.InFlight, st.Queued, st.Capacity)
		}
	case *limiter.Limiter:
		if errors.Is(refusal, limiter.ErrLimitExceeded) {
			st := g.Stats()
			return demand(st.InFlight, st.Queued, st.Limit)
		}
	case *throttle.Throttle:
		if errors.Is(refusal, throttle.ErrThrottled) {
			return rejection(g.Stats().Probability)
		}
	}
	return 1
}

// demand is the load of a guard that admits limit calls at once, with
// inFlight admitted and queued waiting: (inFlight + queued) ÷ limit. A
// limit of 0 or less tells nothing: 1.
func demand(inFlight, queued, limit int) float64 {
	if limit <= 0 {
		return 1
	}
	return (float64(inFlight) + float64(queued)) / float64(limit)
}

// rejection is the load of a guard that rejects a call with probability p:
// 1 ÷ (1 − p), the tries a client needs on average to get through. A p of
// 1 or more is an infinite load; a NaN tells nothing: 1.
func rejection(p float64) float64 {
	switch {
	case math.IsNaN(p):
		return 1
	case p >= 1:
		return math.Inf(1)
	}
	return 1 / (1 - p)
}

// scale returns base × f for a load f, base at least (a load below 1, or
// NaN, is 1), saturating at the largest Duration.
func scale(base time.Duration, f float64) time.Duration {
	if !(f > 1) {
		return base
	}
	v := float64(base) * f
	if v >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(v)
}
