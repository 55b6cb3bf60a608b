package breaker

import (
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/fleet"
)

// A fleet-wide breaker (module redisguard) takes its settings from a
// Breaker made by New, its local fallback.
func init() { fleet.TakeBreaker = takeFleet }

// fleetRules are the trip rules as package fleet names them.
var fleetRules = [...]int{consecutiveRule: fleet.Consecutive, countRule: fleet.RateOfCalls, timeRule: fleet.RateOverTime}

// takeFleet is fleet.TakeBreaker.
func takeFleet(g guard.Guard) (fleet.Breaker, bool) {
	b, ok := g.(*Breaker)
	if !ok || b == nil || b.cur.Load() == nil {
		return fleet.Breaker{}, false
	}
	c := &b.cfg
	s := fleet.Breaker{
		Rule:      fleetRules[c.rule],
		Threshold: int(c.threshold),
		Rate:      c.rate,
		MinCalls:  int(c.minCalls),
		Calls:     c.calls,
		Period:    c.period,
		SlowAfter: c.slow.after,
		SlowRate:  c.slow.rate,
		Open:      c.open,
		Probes:    int(c.probes),
		Successes: int(c.successes),
		IsFailure: c.isFailure,
		Clock:     c.clock,
	}
	if fn := c.onChange; fn != nil {
		s.OnChange = func(from, to uint8) { fn(State(from), State(to)) }
	}
	if c.backOff != nil {
		s.Unshared = "WithOpenBackOff"
	}
	c.isFailure, c.onChange = nil, nil
	return s, true
}
