package breaker

import (
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/fleet"
)

// A fleet-wide breaker (module redisguard) takes its settings from a
// Breaker made by New, its local fallback.
func init() { fleet.TakeBreaker = takeFleet }

// takeFleet is fleet.TakeBreaker.
func takeFleet(g guard.Guard) (fleet.Breaker, bool) {
	b, ok := g.(*Breaker)
	if !ok || b == nil || b.cur.Load() == nil {
		return fleet.Breaker{}, false
	}
	c := &b.cfg
	s := fleet.Breaker{
		Threshold: int(c.threshold),
		Open:      c.open,
		Probes:    int(c.probes),
		Successes: int(c.successes),
		IsFailure: c.isFailure,
		Clock:     c.clock,
	}
	if fn := c.onChange; fn != nil {
		s.OnChange = func(from, to uint8) { fn(State(from), State(to)) }
	}
	switch {
	case c.rule == countRule:
		s.Unshared = "WithFailureRate"
	case c.rule == timeRule:
		s.Unshared = "WithFailureRateOver"
	case c.backOff != nil:
		s.Unshared = "WithOpenBackOff"
	}
	c.isFailure, c.onChange = nil, nil
	return s, true
}
