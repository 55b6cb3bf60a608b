// Package throttle rejects calls locally while the backend rejects many
// of them: the client-side adaptive throttling of Google's SRE book
// ("Site Reliability Engineering", O'Reilly 2016, chapter 21 "Handling
// Overload", section "Client-Side Throttling").
//
// A [Throttle] keeps, over a sliding window of time (the book uses the
// last two minutes; here WithWindow, default 2 minutes), two counts:
//
//   - requests: the calls the application asked it to admit, those it
//     rejected locally included;
//   - accepts: the calls the backend accepted.
//
// It rejects each new call, first attempts and retries alike, with
// probability
//
//	max(0, (requests − K·accepts) / (requests + 1))
//
// with K = 2 by default (WithK), as in the book: while the backend accepts
// at least half of the calls nothing is rejected; beyond that the client
// sheds the excess itself, before it costs the backend anything, and the
// rejection probability rises with the share the backend refuses. A
// rejection is [ErrThrottled].
//
// The Throttle recovers. The book's rule alone forgets slowly: when the
// backend recovers, the failures of the outage stay in the window until
// they leave it, and each call the Throttle rejects meanwhile counts as a
// request that was not accepted, which keeps the probability up. Left
// uncapped, in the herd simulator's outage (cmd/herd: a minute down, a
// minute degraded), 49% of the user calls of the two healthy minutes
// after it failed, rejected by it, and the fleet's calls did not succeed
// at 99% again before the run ended. So the probability is capped
// (WithMaxRejection, DefaultMaxRejection = 0.5, as Envoy's admission
// control and failsafe-go's adaptive throttler cap theirs): at least half
// the calls reach the backend, their accepts outweigh the outage's
// failures, and the probability falls to 0 within a window of the
// recovery. In the same outage, 19% of the healthy minutes' calls fail
// and the calls succeed at 99% again 63 s into the healthy phase; the
// outage's own amplification is unchanged (2.3 calls per user call). With
// K = 2 the cap of 0.5 is the one that clears in a single window: a
// Throttle that lets a share 1 − c through, all accepted, sees a
// probability of 1 − K·(1 − c) a window later, 0 for c = 1 − 1/K. A
// higher cap sheds more during the outage and takes more windows to
// clear; WithMaxRejection(1) is the book's rule.
//
// WithMinRate sets a request rate below which it rejects nothing (Envoy's
// rps_threshold): a quiet client's few failures say little, and rejecting
// its rare calls only delays what it learns. The default is 0.
//
// A shorter window (WithWindow) forgets sooner, at the cost of shedding
// less steadily. WithWindowOffset lays the window out as though the
// Throttle had been made earlier, so that a fleet's throttles, made
// together, do not forget in step.
//
// What counts as accepted. The book counts as accepted any response that
// is not a rejection for overload: a request the backend processed,
// successfully or not. A Go error does not say which it is, so by default
// only a success (a nil error) is an accept, and every error counts
// against the backend; name the errors that mean "processed" (a not
// found, an invalid argument) with WithAccepted, so that they count as
// accepts. A call whose caller gave up (Outcome.Abandoned) and one that a
// guard inside the Throttle refused (guard.IsRefusal) count neither
// way: they are taken out of the requests too.
//
// A Throttle is a [guard.Guard]. In a policy (package
// github.com/herdsafe/backoff/policy), put it inside the retry stage with
// policy.Guard, next to the dependency, so that it counts and sheds every
// attempt:
//
//	p := policy.New(
//		policy.Retry(backoff.WithMaxTries(3)),
//		policy.Guard(throttle.New()),
//	)
//
// Its rejection then stops the retry stage with a Cause that matches
// [backoff.ErrRefused] and wraps ErrThrottled, and LastErr the last real
// error. Outside the retry stage it takes a whole retry loop for one
// request, and a rejection refuses the call before its first attempt. On
// its own, [Throttle.Run] runs a function under it.
//
// A Throttle is safe for concurrent use. Its counts are a ring of ten
// atomic slots, a tenth of the window each, on the library's clock
// (WithClock); Allow and Record take no lock and allocate nothing, and
// only Allow reads the clock, once. The
// random draw (WithRandom, default math/rand/v2) is made only when the
// rejection probability is above 0. [Throttle.Stats] reads the counts and
// the current probability for telemetry.
package throttle
