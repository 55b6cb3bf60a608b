// Package hop is what travels with a request from one service to the next
// so that the retries of a chain of services do not multiply: the attempt
// number and the time the caller will still wait, sent with every attempt,
// and a "do not retry" signal, sent back by a tier whose own retries are
// spent.
//
// When A calls B calls C, and each retries 3 times, a C that fails sees 27
// calls for one user call. gRPC carries the attempt count
// (grpc-previous-rpc-attempts) and the deadline (grpc-timeout) to the next
// hop, and a server can say "do not retry" with a negative
// grpc-retry-pushback-ms; plain HTTP has none of these, so this package
// names them for HTTP, in Envoy's manner:
//
//   - [AttemptHeader] (X-Attempt-Count): which attempt of the call this
//     request is, from 1, as Envoy's x-envoy-attempt-count.
//   - [TimeoutHeader] (X-Request-Timeout-Ms): the whole milliseconds the
//     caller will still wait for this attempt when it is sent, as Envoy's
//     x-envoy-expected-rq-timeout-ms; absent when the caller set no
//     deadline.
//   - [StopHeader] (X-Do-Not-Retry): on a response, "do not retry this
//     call": its presence counts, whatever its value, which names the
//     reason ([ReasonExhausted], [ReasonOverloaded], [ReasonDeadline]), as
//     Envoy counts the presence of x-envoy-overloaded (which package
//     httpretry honours too).
//
// Package httpretry sends the first two with every attempt and stops at
// once on the third; package httpshed reads the first two on the server
// (a retry is shed before a first call; a request whose caller will not
// wait for the queue is refused at once) and sends the third. The gRPC
// module (grpcbackoff) does the same on gRPC's own keys.
//
// # One retry layer, not three
//
// A tier built with this library says "do not retry" by default when its
// own retries to the tier below are spent: httpshed's middleware (or the
// gRPC server interceptors) put a [Tier] in the request's context
// ([Track]); httpretry's Transport and the gRPC client interceptors mark it
// ([GiveUp]) when a call they made with that context ended on a failure
// after retrying, on a guard's refusal (a breaker open, a retry budget
// spent: the tier below is overloaded), or on a "do not retry" of its own;
// and the middleware adds the signal to the tier's 5xx (or 429) answer. So
// only the lowest tier that retries does: in a chain of three tiers of
// three tries whose bottom fails, the bottom sees 3 calls per user call
// instead of 27. A tier with no retries (WithMaxTries(1)) does not say
// it: the tier above it is then the one that retries.
//
// Code that calls the next tier with a client of its own calls GiveUp
// itself.
package hop
