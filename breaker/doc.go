// Package breaker is a circuit breaker: it stops calls to a dependency
// that keeps failing, so that the dependency gets room to recover and the
// callers fail fast instead of waiting on it.
//
// A [Breaker] is closed while the dependency is healthy, and admits every
// call. When the calls fail by its trip rule (by default 5 failures in a
// row; see [WithConsecutiveFailures], [WithFailureRate] and
// [WithFailureRateOver]) it opens, and refuses every call with an
// [*OpenError] matching [ErrCircuitOpen], for the open duration
// ([WithOpenDuration], which [WithOpenBackOff] can make grow while the
// dependency keeps failing). Then it is half-open: it admits a few probe
// calls ([WithHalfOpen]) and refuses the rest; it closes after enough of
// them succeed, and opens again as soon as one fails.
//
// Use it on its own, with [Breaker.Run] or the pair [Breaker.Allow] and
// [Breaker.Record], or put it in a policy with policy.Guard (package
// github.com/herdsafe/backoff/policy). Inside a retry stage it sees every
// attempt as a call, and its refusal stops the retry stage at once:
//
//	cb := breaker.New(breaker.WithConsecutiveFailures(5))
//	p := policy.New(
//		policy.Retry(backoff.WithMaxTries(3)),
//		policy.Guard(cb),
//		policy.Timeout(time.Second),
//	)
//	err := p.DoErr(ctx, call)
//
// A refusal, through Run, guard.Run or a policy, is an error that
// matches [backoff.ErrRefused] and wraps the [*OpenError]: errors.Is(err,
// breaker.ErrCircuitOpen) finds it, in the Cause of the policy's
// [*backoff.Error].
//
// # What counts
//
// A call that returned nil is a success; one that returned an error is a
// failure, unless [WithIsFailure] says otherwise. Two kinds of call are
// neither, because they say nothing about the dependency: a call its
// caller abandoned (the context it was admitted with was done when it
// returned, [guard.Outcome].Abandoned), and a call that a guard inside
// the breaker refused ([guard.IsRefusal]).
//
// # Slow calls
//
// With [WithSlowCalls] the breaker also trips when too many calls are
// slow: a call that took longer than a duration, from Allow to Record,
// counts as slow whether it succeeded or failed, and the share of slow
// calls in the failure-rate rule's window trips the breaker as the share
// of failures does, under the same minimum number of calls. A call that
// never returns is never measured, so bound the calls as well: put a
// timeout stage inside the breaker (policy.Timeout, after the breaker in
// policy.New): a call that overruns the timeout returns the deadline's
// error while the caller's context is still alive, and so counts as a
// failure. A timeout outside the breaker does not: its deadline is the
// caller's context as the breaker sees it, so a call that overruns it is
// abandoned, and counts as neither. A function that ignores its context
// cannot be cut short by either.
//
// # Manual control
//
// An operator can take the decision: [Breaker.ForceOpen] isolates the
// dependency (every call refused until told otherwise), [Breaker.ForceClosed]
// admits every call and never trips, and [Breaker.Reset] returns to the
// closed state with the trip rule's counts cleared. Each is a change of
// state, reported to the WithStateChange hook and counted in
// [Counts].Forced, and the forced states are states of their own,
// ForcedOpen and ForcedClosed, which State returns and the telemetry
// modules export.
//
// # Cost
//
// In the closed state an admitted call that succeeds costs a few atomic
// operations: no lock and no allocation. Only a change of state takes the
// breaker's lock: a failure that trips it, a probe that ends the half-open
// state, the first call after the open duration. A refusal reads the clock
// and allocates its [*OpenError], and, through Run, guard.Run or a policy,
// the mark that makes it a refusal. The time-based window
// ([WithFailureRateOver]) also reads the clock for every call it records,
// and the slow-call rule ([WithSlowCalls]) for every call it admits and
// every call it records.
package breaker
