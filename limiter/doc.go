// Package limiter is an adaptive concurrency limiter: a guard that admits
// a call while fewer calls than its current limit are in flight, and that
// finds the limit itself, from the latency and the failures of the calls
// it admits, instead of being told it. A fleet that autoscales, a
// dependency that loses half its machines, a slow query that fills its
// queue: a fixed number of calls in flight chosen at deploy time is wrong
// in each, and the limiter follows.
//
// It borrows from TCP congestion control, as Netflix's concurrency-limits
// library does. A dependency that has more work than it can do queues
// it, and its latency rises above the latency it has with no load; the
// limiter measures both and shrinks the limit until the queue is short,
// and grows it while nothing queues. Calls over the limit are refused at
// once with [ErrLimitExceeded] (or, with [WithQueue], wait briefly), so
// that the dependency serves the calls it admits at the latency of a
// dependency that is not overloaded, rather than every call late.
//
// # What it measures
//
// Each call's latency runs from its admission (Allow) to its end
// (Record). The limiter gathers the calls that end into sample windows:
// a window ends at the first call that ends once the window has lasted
// [DefaultWindow] (100 ms) and holds [DefaultWindowSamples] (10) calls,
// and never sooner than the mean latency of the window before it
// ([WithWindow]). At the end of each window it computes:
//
//   - latency: the mean latency of the window's calls that succeeded;
//   - no-load latency: the lowest value of an exponential average of the
//     windows' latencies (each window weighing 0.1) over the last 10
//     minutes at least ([WithBaseline]): the best the dependency did,
//     without the noise that spreads single windows below it. A Limiter
//     that starts above the dependency's capacity only ever sees it
//     loaded, and takes that latency for the no-load one: start at a limit
//     the dependency can take ([WithInitialLimit]), or let it measure the
//     no-load latency in probe windows at a few calls in flight, after
//     its first window and then every interval ([WithProbeInterval]);
//   - r = no-load latency / latency, at most 1: 1 when nothing queues;
//   - peak: the most calls that were in flight at once, to tell a limit
//     that was used from one that was not.
//
// and moves the limit, by one of two algorithms, within a floor and a
// ceiling ([WithFloor], [WithCeiling]; from [WithInitialLimit]):
//
// Gradient ([WithGradient], the default), in the manner of Netflix's
// gradient limit:
//
//	g    = min(max(tolerance × r, 1/2), 1)
//	next = limit × g + √limit
//
// A higher next is taken at once if the limit was used (peak ≥ limit −
// √limit); a lower one is smoothed, limit × 0.8 + next × 0.2, unless the
// latency doubled (g = 1/2): then it is taken at once too. The square
// root is the headroom that keeps the limit probing upwards while nothing
// queues; where the rule settles, g = 1 − 1/√limit, so the mean latency
// stays at 1.1 to 1.5 times the no-load latency for limits from 100 down
// to 10.
//
// Vegas ([WithVegas]), as TCP Vegas estimates the packets queued in the
// network:
//
//	queued = limit × (1 − r)
//	a      = min(alpha × max(1, log10 limit), limit/4)
//	b      = min(beta × max(1, log10 limit), limit/2)
//
// Below a the limit grows by √limit × (1 − queued/a), by 1 at least, if
// it was used (peak ≥ limit/2); above b it shrinks to limit × b / queued,
// by half at most; in between it stays. alpha and beta are 3 and 6 by
// default; the caps keep a small limit's queue to half of it, a latency
// of twice the no-load latency at most. Vegas holds the queue at the
// dependency to a few calls per limiter, and, once there, the limit
// still; but with a limit in the hundreds the noise of the measured
// latency is itself worth a few calls, and it grows slowly: prefer the
// gradient for one limiter shared by many callers.
//
// Many limiters in front of one dependency (one per client of a fleet)
// each keep a queue of their own there, and the queues add up: the rules
// hold the latency within about 1.5 times the no-load latency while each
// limiter's share is ten calls or more, and less well below.
//
// Failures: a window in which a call failed multiplies the limit by
// [DefaultDecrease] (0.9, [WithDecrease]), whatever the latency: the
// multiplicative decrease of AIMD, for the overload a dependency reports
// by failing (timeouts, 503s) rather than by slowing down. By default
// every error is a failure; [WithIsFailure] says which are. A call whose
// caller gave up (guard.Outcome.Abandoned), and one that a guard inside
// the limiter refused, count neither way.
//
// # Priorities and the queue
//
// With [WithPriorityThresholds] the limiter sheds calls by the priority
// their context carries, the bulkhead package's (bulkhead.WithPriority:
// low, standard or critical), as a bulkhead.PriorityBulkhead does, but of
// the current limit: low-priority calls may take a share of it (half,
// with the PriorityBulkhead's thresholds), standard ones a larger share,
// critical ones all of it. With [WithQueue] and [WithMaxWait] a call over
// the limit waits, in arrival order, for a call to end or the limit to
// grow, as in a bulkhead.Bulkhead's queue.
//
// # Use
//
// A Limiter is a [guard.Guard]: put it in a policy (package
// github.com/herdsafe/backoff/policy) with policy.Guard, where its
// refusal ends the call with an error that matches backoff.ErrRefused and
// wraps ErrLimitExceeded, or run a function under it with [Limiter.Run].
// Outside a retry stage it limits calls; inside one, attempts, each
// measured on its own. It reads the library's clock ([WithClock]), so
// tests and the herd simulator run it in virtual time, and
// [Limiter.Stats] reports its limit, the calls in flight and queued, and
// the refusals, which the telemetry modules export (their Observe method).
//
// The path of an admitted call, under the limit and nobody queued, takes
// no lock and allocates nothing: an atomic counter, two readings of the
// clock and the window's counters are all it touches.
package limiter
