// Package budget limits retries: a retry budget lets a client retry while
// its dependency mostly answers, and stops its retries, never its first
// attempts, once failures pile up, so that a fleet of clients does not
// multiply the load on a dependency that is already failing. It is the
// "adaptive retries" of the library's design study: a store of credit
// that requests or successes fill and retries or failures drain.
//
// A [Budget] is a [guard.Guard]. It belongs inside the retry stage of a
// policy (package github.com/herdsafe/backoff/policy), where it sees each
// attempt's number; put it there with policy.Guard:
//
//	b := budget.NewTokenBucket()
//	p := policy.New(
//		policy.Retry(backoff.WithMaxTries(3)),
//		policy.Guard(b),
//	)
//
// A retry it refuses ends the call: the retry stage stops with a Cause
// that matches [backoff.ErrRefused] and wraps [ErrBudgetExhausted]
// (errors.Is finds either), and LastErr the error of the last attempt that
// ran. Placed outside the retry stage, a Budget sees every call as a first
// attempt ([guard.Call].Attempt is 1 there), so it never refuses
// anything: a ratio budget then only counts requests, and a token bucket
// only learns how calls ended. A retry loop of your own passes the
// attempt's number to [guard.Run] itself (see [Budget.Run]).
//
// There are three budgets, each with the figures of a well-known
// implementation as its defaults:
//
//   - [NewTokenBucket] is gRPC's retry throttling, from gRFC A6 "gRPC
//     Retry Design", section "Throttling Retry Attempts and Hedged RPCs",
//     configured as "retryThrottling" in the gRPC service config. A token
//     count starts at maxTokens; each failed attempt takes 1 token away
//     (down to 0), each successful one gives tokenRatio back (up to
//     maxTokens); retries are allowed only while the count is greater than
//     maxTokens/2. gRPC has no default; this package takes the gRFC's
//     example, maxTokens 10 and tokenRatio 0.1, under which retries stop
//     once the ratio of failures to successes exceeds about 1 to 10.
//   - [NewRatio] allows retries up to a fraction of the recent requests,
//     over a sliding window of time, plus a number of retries per second
//     that is allowed regardless, so that a client with little traffic can
//     still retry. It follows Finagle's RetryBudget
//     (com.twitter.finagle.service.RetryBudget.apply: ttl 10 s,
//     minRetriesPerSec 10, percentCanRetry 0.2), whose defaults it takes;
//     Envoy's retry_budget (in the cluster's circuit_breakers thresholds:
//     budget_percent, default 20%, and min_retry_concurrency, default 3)
//     caps the same fraction over the requests in flight rather than over
//     time. See NewRatio for what was adapted.
//   - [NewInFlight] is Envoy's retry_budget (Istio's retryBudget): the
//     retries in flight may be at most a fraction of all the calls in
//     flight (20%), or a minimum (3), whichever is more. It has no window
//     and reads no clock: its limit follows the load at once. It suits
//     long calls, or a load that swings; the others suit short calls, of
//     which few are ever in flight at once.
//
// All are safe for concurrent use; an in-flight budget takes no lock at
// all, its counts being two atomic words. A first attempt and the record of a
// success take no lock and allocate nothing: the token count is one atomic
// word, which a success on a full bucket only reads, and the ratio
// budget's window is a ring of atomic counters, which a first attempt
// counts in after one reading of the clock. Only a
// ratio budget's retry admission takes a mutex, so that concurrent retries
// cannot overdraw it; a retry follows a failure, so this is the failure
// path. [Budget.Stats] reads the counts for telemetry.
package budget
