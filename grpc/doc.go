// Package grpcbackoff retries gRPC calls, on the client, and sheds load
// with the server's pushback, on the server. It is a module of its own, so
// that the core never downloads gRPC.
//
// The package is named grpcbackoff, not grpc, so that it does not shadow
// google.golang.org/grpc in the files that import both, as otelbackoff and
// prombackoff do not shadow theirs.
//
// # Clients
//
// UnaryClientInterceptor and StreamClientInterceptor run every call of a
// ClientConn through one retry stage, which retries the attempts that
// failed with a status code that is safe to retry (UNAVAILABLE unless
// WithRetryableCodes says otherwise), and through the guards their options
// place: around the whole call (WithCallGuards: a bulkhead, a rate
// limiter) or around each attempt (WithAttemptGuards: a breaker, a retry
// budget; WithAttemptTimeout). Each takes guards, not stages, so that an
// interceptor has one retry stage, never none or two. The options build
// one policy.Policy of package github.com/herdsafe/backoff/policy, once;
// each call runs through it and reads its attempt's number from the
// backoff.Attempt the retry stage hands it.
//
//	icpt := grpcbackoff.UnaryClientInterceptor(
//		grpcbackoff.WithRetry(backoff.WithMaxTries(3)), // 3 attempts, full jitter
//		grpcbackoff.WithCallGuards(bulkhead.New(20)),   // at most 20 calls in flight
//		grpcbackoff.WithAttemptGuards(budget.NewTokenBucket(budget.WithIsFailure(grpcbackoff.Codes(codes.Unavailable)))), // gRFC A6's retry throttling
//		grpcbackoff.WithAttemptTimeout(2*time.Second),  // each attempt gets 2 s at most
//	)
//	conn, err := grpc.NewClient(target,
//		grpc.WithTransportCredentials(creds),
//		grpc.WithChainUnaryInterceptor(icpt),
//		grpc.WithDisableRetry(),
//	)
//
// The rules are those of gRFC A6, "gRPC Retry Design":
//
//   - A call whose context is done is never retried: a DEADLINE_EXCEEDED
//     of the caller's own deadline ends the call, and so does a CANCELLED,
//     whatever its origin. A DEADLINE_EXCEEDED of an attempt's own deadline
//     (WithAttemptTimeout), while the caller's context is alive, is
//     retried.
//   - Each attempt gets the caller's context, as the retry stage derives
//     it: the caller's deadline, or WithAttemptTimeout's if it is sooner,
//     travels to the server as the attempt's grpc-timeout, so an attempt
//     never has more time than what is left of the call.
//   - The server's pushback: a grpc-retry-pushback-ms trailer of n ≥ 0 makes
//     the next wait n milliseconds, as backoff.RetryAfter does, if the
//     status code is retryable; a negative or malformed one stops the
//     retries, with a Cause that matches backoff.ErrRetriesCanceled.
//     A pushback longer than WithMaxPushback stops them too.
//   - Every attempt after the first carries its number of previous attempts
//     as the grpc-previous-rpc-attempts metadata.
//   - A stream is committed once the client has received a message or the
//     server's headers, or once the messages it sent outgrow what it may
//     keep to send again (WithMaxStreamBuffer): a committed stream is never
//     retried.
//   - Retry throttling is a budget.NewTokenBucket guard around each
//     attempt, as above; its WithIsFailure classifier, Codes, counts the
//     failures gRFC A6 counts.
//   - WithHedging hedges the unary methods it names, through package hedge,
//     instead of retrying them; the call guards see each hedged call, the
//     attempt guards each of its attempts.
//   - The waits are the retry stage's, full jitter by default: A6 as amended
//     (grpc/proposal#452) multiplies each nominal wait by a random factor
//     in [0.8, 1.2], which brings clients that failed together back in
//     waves; full jitter spreads them over the whole wait. A6BackOff is
//     A6's schedule, for a client that must wait as gRPC's own retries do.
//
// A call that fails returns an error that reads as a gRPC status, so that
// status.Code and status.FromError keep working, and that unwraps to a
// *backoff.Error: errors.As finds it, and errors.Is finds
// the Cause (budget.ErrBudgetExhausted, breaker.ErrCircuitOpen...). See
// UnaryClientInterceptor for the status it carries.
//
// # Servers
//
// UnaryServerInterceptor and StreamServerInterceptor shed the calls a guard
// refuses (a bulkhead full, a throttle or a budget of the server's own
// spent, a breaker open) with UNAVAILABLE, or RESOURCE_EXHAUSTED, and a
// grpc-retry-pushback-ms trailer that tells the client when to come back:
// the wait of package github.com/herdsafe/backoff/pushback, read from the
// guard's state and spread so that the clients it sheds do not come back
// together, as package httpshed's Retry-After is, in milliseconds.
//
// Before the guard is asked, the server interceptors read what the call
// tells of its client: a retry (grpc-previous-rpc-attempts above 0) is
// refused while the guard's pressure (pushback.Pressure) is at
// WithRetryPressure's threshold (0.8 by default), so that a retry never
// takes the place of a first call, and a call whose deadline is sooner
// than the time calls now wait in the guard's queue is refused at once,
// since nobody would wait for its answer. Both are answered with the shed
// code and a grpc-retry-pushback-ms of -1: do not retry.
//
// The handler's context carries a hop.Tier (package
// github.com/herdsafe/backoff/hop). A client interceptor of this package
// that the handler calls the tier below with, with that context, marks it
// when it gives up after retrying, on a pushback that said not to retry,
// or on a guard's refusal; the server interceptor then adds a
// grpc-retry-pushback-ms of -1 to the handler's error. So in a chain of services built with this module
// only the lowest tier that retries does, and a failing dependency at the
// bottom sees one tier's retries per user call, not their product.
//
// # Tests
//
// The waits are the retry stage's: give WithRetry backoff.WithClock with a
// *clock.Mock to run them on virtual time.
package grpcbackoff
