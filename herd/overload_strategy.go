package herd

import (
	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/limiter"
)

// OverloadStrategies returns the strategies the command cmd/herd compares
// in the Overload scenario, for the fleet cfg describes (its Clients,
// Server and Delay), each client with guards of its own. Its calls are
// not retried, so the strategies have no BackOff. In this order:
//
//   - "none": no guard; every call is sent.
//   - "bulkhead": bulkhead.New(n), a fixed bulkhead set for the healthy
//     server: n is Server.HealthyConcurrency, the calls in flight per
//     client with which the fleet keeps the server at its full capacity
//     without a queue, by Little's law.
//   - "adaptive-gradient": limiter.New(), the adaptive concurrency
//     limiter on its defaults: the gradient algorithm, from a limit of 20.
//   - "adaptive-vegas": limiter.New with limiter.WithVegas(3, 6), the
//     Vegas algorithm on its default thresholds.
//
// The guards read the simulation's virtual clock.
func OverloadStrategies(cfg Config) []Strategy {
	n := cfg.Server.HealthyConcurrency(cfg.Clients, cfg.Delay)
	fixed := func(clock.Clock, func() float64) guard.Guard { return bulkhead.New(n) }
	return []Strategy{
		{Name: "none"},
		{Name: "bulkhead", NewGuards: guards(fixed)},
		{Name: "adaptive-gradient", NewGuards: guards(adaptiveGradient)},
		{Name: "adaptive-vegas", NewGuards: guards(adaptiveVegas)},
	}
}

func adaptiveGradient(clk clock.Clock, _ func() float64) guard.Guard {
	return limiter.New(limiter.WithClock(clk))
}

func adaptiveVegas(clk clock.Clock, _ func() float64) guard.Guard {
	return limiter.New(limiter.WithClock(clk), limiter.WithVegas(limiter.DefaultAlpha, limiter.DefaultBeta))
}

// guardMaker makes one guard of a client.
type guardMaker func(clk clock.Clock, random func() float64) guard.Guard

// guards returns a Config.NewGuards that makes one guard of each maker,
// in order.
func guards(makers ...guardMaker) func(clock.Clock, func() float64) []guard.Guard {
	return func(clk clock.Clock, random func() float64) []guard.Guard {
		gs := make([]guard.Guard, len(makers))
		for i, m := range makers {
			gs[i] = m(clk, random)
		}
		return gs
	}
}
