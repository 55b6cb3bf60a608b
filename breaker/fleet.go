package breaker

import "github.com/herdsafe/backoff/internal/fleet"

// NewFleetFallback returns the Breaker that New makes of opts, to be the
// local fallback of a breaker that a fleet shares (module redisguard's
// NewBreaker), and the settings that the shared breaker keeps for the
// whole fleet, read from opts as New reads them, with its defaults and
// ranges. A bad option is b's Validate error, as New reports it.
//
// The shared breaker classifies the errors and reports the changes of
// state itself, so b does neither: it counts every error it is told of as
// a failure and reports no change of state, and s carries WithIsFailure's
// classifier and WithStateChange's hook instead. s.Unshared names
// WithOpenBackOff if it was given: a shared breaker cannot grow its open
// duration.
//
// The settings' type is internal to this repository's modules:
// NewFleetFallback is the hand-over between this package and module
// redisguard, which calls it where it builds a shared breaker.
func NewFleetFallback(opts ...Option) (b *Breaker, s fleet.Breaker) {
	b = New(opts...)
	c := &b.cfg
	s = fleet.Breaker{
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
	return b, s
}

// fleetRules are the trip rules as package fleet names them.
var fleetRules = [...]int{consecutiveRule: fleet.Consecutive, countRule: fleet.RateOfCalls, timeRule: fleet.RateOverTime}
