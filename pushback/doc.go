// Package pushback is the wait a server asks of a client whose call one of
// the server's guards refused: how long to stay away, read from the
// refusing guard's state, spread so that the clients refused in the same
// instant do not come back in the same instant, in the whole units the
// wire carries. Package httpshed sends it as an HTTP Retry-After header
// (whole seconds), the server interceptors of the gRPC module
// (grpcbackoff) as a grpc-retry-pushback-ms trailer (milliseconds): both
// compute it with a [Rule], so that the same state asks for the same wait
// on either wire.
//
// # The wait a guard's state asks for
//
// The wait starts from the Rule's Base, the shortest wait asked for, and
// the guard's state can only lengthen it. The state is what the refusal
// says of itself (read with backoff.MarksOf) and what the guard says of its
// load (guard.Loader, which every guard of this repository whose state
// tells something implements, and a guard of your own may):
//
//   - A refusal that names its wait (a RetryAfter() time.Duration method,
//     found in its chain as errors.As would) of more than 0 asks for that
//     wait: a breaker's *breaker.OpenError, the time until the breaker
//     admits a probe; a ratelimit.Limiter's refusal, the time until its
//     next token; a refusal of a guard of your own that knows when it will
//     admit a call.
//   - A refusal for the guard's load (one that matches its Load's Full)
//     asks for the base times the larger of its demand, (in flight +
//     queued) ÷ capacity, and 1 ÷ (1 − p), p its rejection probability:
//   - a *bulkhead.Bulkhead full (bulkhead.ErrBulkheadFull) asks for the
//     base times (in flight + queued) ÷ capacity: each capacity's worth
//     of callers ahead adds a base; a *bulkhead.PriorityBulkhead the same
//     of its calls in flight;
//   - a *limiter.Limiter at its limit (limiter.ErrLimitExceeded) asks the
//     same of its current limit: (in flight + queued) ÷ limit;
//   - a *throttle.Throttle's rejection (throttle.ErrThrottled) asks for
//     the base ÷ (1 − p): the wait of a client that tries once per base
//     and gets through with probability 1 − p.
//   - Anything else asks for the base.
//
// A load below 1, or one that is not a number (a capacity of 0, a NaN
// probability), leaves the base; an infinite one (a probability of 1)
// asks for the Rule's Max.
//
// # The spread
//
// Clients refused together and told the same wait would come back
// together. The wait d is spread uniformly over [d, 2d + Unit), cut down
// to whole Units and never below d rounded up to one: a wait of n whole
// units becomes each of n, n+1, ..., 2n units with the same chance, so
// that the clients refused in one instant come back spread over a span as
// long as the wait itself. The wait told is at most Max, the spread
// included, and at least one Unit.
//
// The two wires differ only in the Unit: for the same state and the same
// draw, a Retry-After and a grpc-retry-pushback-ms are the same wait to
// within a second.
package pushback
