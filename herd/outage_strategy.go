package herd

import (
	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
	"github.com/herdsafe/backoff/throttle"
)

// SRERetryRatio is the retry budget of the SRE book ("Site Reliability
// Engineering", O'Reilly 2016, chapter 21 "Handling Overload", section
// "Deciding to Retry"): a client retries while its retries are
// less than 10% of its requests, which bounds the load of an outage to
// 1.1 times the base load. The "ratio-10" strategy of OutageStrategies
// sets a ratio budget to it.
const SRERetryRatio = 0.1

// OutageStrategies returns the strategies the command cmd/herd compares
// in the Outage scenario, built from this library's own guards, each on
// its defaults unless said otherwise. Every one retries as a Policy's
// retry stage does by default: up to Config.Tries attempts (3 by
// default), waiting policy.DefaultBackOff's waits (full jitter, from
// 100 ms, doubling, capped at 5 s); they differ in the guards every client
// has inside its retry loop, outermost first. In this order:
//
//   - "retry": no guard, retries only.
//   - "token-bucket": budget.NewTokenBucket(), gRPC's retry throttling
//     (10 tokens, 0.1 back per success; no retry at 5 tokens or fewer).
//   - "ratio": budget.NewRatio(), Finagle's RetryBudget (retries up to 20%
//     of the first attempts of the last 10 s, plus 10 a second).
//   - "ratio-10": budget.NewRatio with budget.WithRetryRatio(SRERetryRatio)
//     and budget.WithMinRetriesPerSecond(0): the SRE book's budget,
//     retries up to 10% of the requests, without a reserve.
//   - "breaker": breaker.New(): open after 5 failures in a row, for 60 s,
//     then one probe.
//   - "throttle": throttle.New(), the SRE book's adaptive throttling (K = 2
//     over the last 2 minutes), drawing from the client's random source.
//   - "combined": the token bucket, the breaker and the throttle, in that
//     order: a retry the budget refuses reaches neither of the others, and
//     the throttle, nearest the dependency, counts only the calls the
//     breaker lets through.
//
// The guards read the simulation's virtual clock.
func OutageStrategies() []Strategy {
	return []Strategy{
		{Name: "retry", NewBackOff: retryStage},
		{Name: "token-bucket", NewBackOff: retryStage, NewGuards: guards(tokenBucket)},
		{Name: "ratio", NewBackOff: retryStage, NewGuards: guards(ratio)},
		{Name: "ratio-10", NewBackOff: retryStage, NewGuards: guards(ratio10)},
		{Name: "breaker", NewBackOff: retryStage, NewGuards: guards(circuit)},
		{Name: "throttle", NewBackOff: retryStage, NewGuards: guards(throttled)},
		{Name: "combined", NewBackOff: retryStage, NewGuards: guards(tokenBucket, circuit, throttled)},
	}
}

// retryStage returns the waits of a Policy's retry stage by default.
func retryStage() backoff.BackOff { return policy.DefaultBackOff() }

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

func tokenBucket(clock.Clock, func() float64) guard.Guard { return budget.NewTokenBucket() }

func ratio(clk clock.Clock, _ func() float64) guard.Guard {
	return budget.NewRatio(budget.WithClock(clk))
}

func ratio10(clk clock.Clock, _ func() float64) guard.Guard {
	return budget.NewRatio(budget.WithClock(clk), budget.WithRetryRatio(SRERetryRatio), budget.WithMinRetriesPerSecond(0))
}

func circuit(clk clock.Clock, _ func() float64) guard.Guard {
	return breaker.New(breaker.WithClock(clk))
}

func throttled(clk clock.Clock, random func() float64) guard.Guard {
	return throttle.New(throttle.WithClock(clk), throttle.WithRandom(random))
}
