package redisguard

import (
	"sync/atomic"

	"github.com/herdsafe/backoff/breaker"
)

// What a Breaker reports of itself: its state and its counts.

// count and uncount keep the counts of the verdicts, and of the slow
// calls.
func (b *Breaker) count(v verdict, slow bool) {
	b.counter(v).Add(1)
	if slow {
		b.slowCalls.Add(1)
	}
}

func (b *Breaker) uncount(v verdict, slow bool) {
	b.counter(v).Add(^uint64(0))
	if slow {
		b.slowCalls.Add(^uint64(0))
	}
}

func (b *Breaker) counter(v verdict) *atomic.Uint64 {
	switch v {
	case success:
		return &b.successes
	case failure:
		return &b.failures
	}
	return &b.neutral
}

// State returns the state of the shared breaker as this instance's last
// round trip saw it (Closed before the first), or the local fallback's
// while the breaker decides locally. It makes no round trip.
func (b *Breaker) State() breaker.State {
	switch {
	case b.Validate() != nil:
		return breaker.Open
	case b.link.local.Load():
		return b.local.State()
	}
	if v := b.view.Load(); v != nil {
		return v.state
	}
	return breaker.Closed
}

// BreakerStats are a Breaker's figures, for telemetry, as this instance
// knows them.
type BreakerStats struct {
	// State is what State returns.
	State breaker.State
	// ConsecutiveFailures is the fleet's count of failures in a row, as
	// this instance's last round trip saw it.
	ConsecutiveFailures uint64
	// Successes, Failures and Neutral count this instance's records of
	// each verdict, on the shared state or on the local fallback.
	Successes uint64
	Failures  uint64
	Neutral   uint64
	// Ignored counts the records of calls admitted before a change of
	// state, which counted for nothing (and those with a Permit the
	// Breaker did not issue).
	Ignored uint64
	// Rejections counts the calls this instance refused.
	Rejections uint64
	// Transitions counts the changes of the shared state that this
	// instance's round trips made.
	Transitions uint64
	// Slow counts this instance's records, as successes or as failures,
	// of calls slower than breaker.WithSlowCalls' duration: 0 without it.
	Slow uint64
	// WindowCalls is the number of calls in the fleet's window of a
	// failure-rate rule, and WindowFailures and WindowSlow the failures
	// and the slow calls among them, as this instance's last round trip
	// saw them in the closed state: 0 with failures in a row.
	WindowCalls    uint64
	WindowFailures uint64
	WindowSlow     uint64
	// Link is the figures of the way to Redis.
	Link Link
	// Local is the local fallback's own counts.
	Local breaker.Counts
}

// Stats returns the Breaker's figures. It makes no round trip. Each is
// read atomically, but not all at the same instant.
func (b *Breaker) Stats() BreakerStats {
	if b.Validate() != nil {
		return BreakerStats{State: breaker.Open}
	}
	s := BreakerStats{
		State:       b.State(),
		Successes:   b.successes.Load(),
		Failures:    b.failures.Load(),
		Neutral:     b.neutral.Load(),
		Ignored:     b.ignored.Load(),
		Rejections:  b.rejections.Load(),
		Transitions: b.transitions.Load(),
		Slow:        b.slowCalls.Load(),
		Link:        b.link.stats(),
		Local:       b.local.Counts(),
	}
	if v := b.view.Load(); v != nil {
		s.ConsecutiveFailures = v.fails
		s.WindowCalls, s.WindowFailures, s.WindowSlow = v.calls, v.windowFails, v.windowSlow
	}
	return s
}
