package pushback

import (
	"errors"
	"math"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
)

// hint returns the wait the state of g asks for after it refused a call
// with refusal, before the spread: base at least, saturating at the
// largest Duration (see the package documentation).
func hint(g guard.Guard, refusal error, base time.Duration) time.Duration {
	if m := backoff.MarksOf(refusal); m.Named && m.Wait > 0 {
		return max(m.Wait, base)
	}
	return scale(base, load(g, refusal))
}

// loadOf returns g's Load, the zero Load for a guard that is no
// guard.Loader.
func loadOf(g guard.Guard) guard.Load {
	if l, ok := g.(guard.Loader); ok {
		return l.Load()
	}
	return guard.Load{}
}

// load returns how many times the base the state of g asks for, after it
// refused a call with refusal: the larger of its demand and its
// rejection's, for a refusal that matches its Load's Full; 1 for any
// other, and for a guard whose state tells nothing more.
func load(g guard.Guard, refusal error) float64 {
	l := loadOf(g)
	if l.Full == nil || !errors.Is(refusal, l.Full) {
		return 1
	}
	return max(demand(l.InFlight, l.Queued, l.Capacity), rejection(l.Rejection))
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
