// Package chaos injects faults into calls on purpose: synthetic latency and
// synthetic errors, so that a test or a game day can show what the stages
// around a dependency do when it is slow or failing.
//
// An [Injector] is a [guard.Guard], a stage like any other: put it in a
// policy (package github.com/herdsafe/backoff/policy) with policy.Guard,
// where the dependency would be, inside the stages it is meant to
// exercise:
//
//	p := policy.New(
//		policy.Retry(backoff.WithMaxTries(3)),
//		policy.Timeout(time.Second),
//		policy.Guard(chaos.New(chaos.Config{
//			ErrorProbability:   0.1,
//			InjectedError:      errSynthetic,
//			LatencyProbability: 0.2,
//			LatencyDuration:    2 * time.Second,
//		})),
//	)
//
// On its own, [Injector.Run] runs a function of your own under it.
//
// Nothing here is switched on by default or by the environment: a Policy
// injects faults only if its author put an Injector in it, and a zero
// [Config] injects nothing.
//
// # What is injected
//
// For each call, [Injector.Allow] first waits LatencyDuration with
// probability LatencyProbability, on the Injector's clock, as a slow
// dependency would. Then, with probability ErrorProbability, it fails the
// call with InjectedError, marked with [guard.Failure]: the function is
// not called, and the stages around the guard handle the error as the
// call's own failure (a retry stage retries it, a breaker counts it, a
// fallback replaces it). Otherwise the call goes ahead.
//
// An injected delay ends at once when the call's context is done, and the
// call then fails with the context's cause, marked as its own failure too:
// to the stages around the guard it is a slow call that ran out of time. A
// timeout stage between a retry stage and the guard therefore sees an
// attempt that timed out, and the retry stage retries it; the caller's own
// cancellation ends the call with the context's cause, as it always does.
//
// # Reproducible runs
//
// The draws come from math/rand/v2 unless [Config].Rand is set. [Seeded]
// gives a seeded source, so that two runs with the same seed inject the
// same faults on the same calls.
package chaos
