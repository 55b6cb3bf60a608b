package herd

import (
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/policy"
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
// its defaults unless said otherwise, as ParseStack reads their names.
// Every one retries as a Policy's retry stage does by default: up to
// Config.Tries attempts (3 by default), waiting policy.DefaultBackOff's
// waits (full jitter, from 100 ms, doubling, capped at 5 s); they differ
// in the guards every client has inside its retry loop, outermost first.
// In this order:
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
// The guards read the simulation's virtual clock, and each client's
// windows (the ratio budget's, the throttle's) start at a random offset
// of their own (see Stack).
func OutageStrategies() []Strategy {
	var out []Strategy
	for _, name := range []string{"retry", "token-bucket", "ratio", "ratio-10", "breaker", "throttle", "combined"} {
		st, err := ParseStack(name)
		if err != nil {
			panic(err) // the names are this package's own
		}
		s := st.Strategy(RetryStage)
		s.Name = name
		out = append(out, s)
	}
	return out
}

// RetryStage returns the waits of a Policy's retry stage by default,
// policy.DefaultBackOff: the BackOff of the strategies of
// OutageStrategies.
func RetryStage() backoff.BackOff { return policy.DefaultBackOff() }
