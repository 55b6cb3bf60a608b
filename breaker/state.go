package breaker

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/herdsafe/backoff/internal/window"
)

// State is the state of a Breaker.
type State uint8

const (
	// Closed admits every call, and counts how they end.
	Closed State = iota
	// Open refuses every call, until its open duration has passed.
	Open
	// HalfOpen admits a few probe calls, and refuses the others.
	HalfOpen
	// ForcedOpen refuses every call, until ForceClosed or Reset: the
	// state ForceOpen puts the breaker in. No open duration ends it.
	ForcedOpen
	// ForcedClosed admits every call, and counts how they end, but never
	// trips, until ForceOpen or Reset: the state ForceClosed puts the
	// breaker in.
	ForcedClosed
)

// String returns "closed", "open", "half-open", "forced-open" or
// "forced-closed".
func (s State) String() string {
	switch s {
	case Closed:
		return "closed"
	case Open:
		return "open"
	case HalfOpen:
		return "half-open"
	case ForcedOpen:
		return "forced-open"
	case ForcedClosed:
		return "forced-closed"
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// period is one stay of the breaker in a state: its generation, the token
// of the permits it issues, and its counts. Each change of state makes a
// new period, so that a call admitted in an earlier one, recorded late,
// lands in a period that is gone and changes nothing.
type period struct {
	gen   uint64
	state State
	until time.Time // Open: when it admits a probe

	consecutive atomic.Uint64 // failures since the last success
	probes      atomic.Int32  // HalfOpen: places taken
	records     atomic.Int32  // HalfOpen: records of probes, at most the places taken
	wins        atomic.Int32  // HalfOpen: probes that succeeded

	calls *countWindow   // Closed, with WithFailureRate
	timed *window.Window // Closed, with WithFailureRateOver
}

// takeProbe takes a place among the k probes of a half-open period.
func (p *period) takeProbe(k int32) bool {
	for {
		n := p.probes.Load()
		if n >= k {
			return false
		}
		if p.probes.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// move makes the breaker leave the period from for a new one in the state
// to, if from is still current, and reports the change once the lock is
// released. It returns the current period.
func (b *Breaker) move(from *period, to State) *period {
	next, moved := b.swap(from, to)
	if moved && b.cfg.onChange != nil {
		b.cfg.onChange(from.state, to)
	}
	return next
}

// swap is move's part under the lock. The lock is released by a defer, so
// that a panic in the BackOff leaves the breaker as it was.
func (b *Breaker) swap(from *period, to State) (*period, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if cur := b.cur.Load(); cur != from {
		return cur, false
	}
	return b.enter(from, to), true
}

// enter makes the period after from, in the state to, the current one,
// and returns it. It is called under the lock.
func (b *Breaker) enter(from *period, to State) *period {
	next := &period{gen: from.gen + 1, state: to}
	switch to {
	case ForcedClosed:
		if b.cfg.backOff != nil {
			b.cfg.backOff.Reset()
		}
		b.lastOpen = b.cfg.open
	case Closed:
		if b.cfg.backOff != nil {
			b.cfg.backOff.Reset()
		}
		b.lastOpen = b.cfg.open
		b.fill(next)
	case Open:
		next.until = b.cfg.clock.Now().Add(b.openDuration())
		next.consecutive.Store(from.consecutive.Load())
	case HalfOpen:
		next.consecutive.Store(from.consecutive.Load())
	}
	b.cur.Store(next)
	b.transitions.Add(1)
	return next
}

// fill gives a closed period the window of the trip rule.
func (b *Breaker) fill(p *period) {
	switch b.cfg.rule {
	case countRule:
		p.calls = newCountWindow(b.cfg.calls, b.cfg.slow.after != 0)
	case timeRule:
		p.timed = newTimeWindow(b.cfg.clock, b.cfg.period)
	}
}

// openDuration is how long the breaker opening now stays open. It is
// called under the lock.
func (b *Breaker) openDuration() time.Duration {
	if b.cfg.backOff == nil {
		return b.cfg.open
	}
	if d := b.cfg.backOff.NextBackOff(); d >= 0 {
		b.lastOpen = d
	}
	return b.lastOpen
}
