// Package httpretry retries HTTP requests that failed for a transient
// reason, without ever resending what is unsafe to resend.
//
// Its [Transport] wraps any [http.RoundTripper], so any code that accepts an
// [*http.Client] gains retries with one line:
//
//	client := &http.Client{Transport: httpretry.NewTransport(http.DefaultTransport)}
//
// By default a request is tried at most 3 times ([DefaultMaxTries]), with
// full-jitter exponential waits from 100 ms, each capped at 5 s (see
// [DefaultBackOff]): the defaults of a retry stage of package policy. It
// may spend at most 30 s ([DefaultMaxElapsedTime]), counted from the call
// to RoundTrip, its attempts and waits included; a retry stage of package
// policy has no such budget, but a Transport is often used without a
// deadline. It is retried
// after the transient failures
// [DefaultRetryable] recognizes: network errors worth retrying, HTTP/2
// stream resets that say the server did not finish the request, and the
// statuses 408, 429, 502, 503 and 504.
//
// # What is replayed
//
// The replay rules are those net/http applies itself. Only GET, HEAD,
// OPTIONS and TRACE requests, and requests carrying an Idempotency-Key or
// X-Idempotency-Key header, are retried, and, whatever the method, an
// HTTP/2 REFUSED_STREAM, which the server promises it did not process; [WithRetryableMethods] and
// [WithIdempotencyKeyHeader] change that. A request body is resent only
// through [http.Request.GetBody] (which [http.NewRequest] sets for in-memory
// bodies); a body that cannot be recreated is never resent, and no body is
// ever buffered to make it replayable. GetBody is called for the next
// attempt before a retry is decided; a body that cannot be recreated (no
// GetBody, or a GetBody that fails) stops the retries. A retryable response
// to such a request is handed to the caller as it is; a retryable transport
// error comes back matching both itself and [ErrBodyNotReplayable] (and
// GetBody's error, if GetBody failed).
//
// An Idempotency-Key header is only a promise the client makes: a retry is
// safe only if the server honours it. net/http itself also resends a
// request that is safe to replay when a reused connection fails before any
// response arrives, below the Transport: a server may therefore see more
// requests for one call than WithMaxTries allows attempts. No retry can give exactly-once
// delivery: a request that timed out may have been carried out.
//
// # What the caller gets
//
// Transport keeps the [http.RoundTripper] contract: exactly one of the
// response and the error is non-nil, the caller's request is never
// modified (every attempt sends a clone of it), its body is always closed,
// and a Transport is safe for concurrent use. Each request gets its own
// backoff state.
//
// When retries run out on a retryable status, the caller gets the last
// response, its body unread, and a nil error, as net/http would. When they
// run out on a transport error, the error is a [*backoff.Error] that matches
// [backoff.ErrExhausted] and wraps the last transport error. Intermediate
// responses are drained (at most 4 KiB, for at most 100 ms, so that a
// server that trickles its body cannot hold the caller) and closed, so
// that their connections are reused; [WithMaxElapsedTime] and the context's
// deadline are checked again after the drain. A response drained for a
// retry that is then not made is never handed to the caller: it gets the
// error, whose LastErr is that response's [*StatusError].
//
// On 429 and 503, a Retry-After header (delay-seconds, or an HTTP-date in
// any format [http.ParseTime] accepts) replaces the computed wait for that
// retry, and restarts the computed sequence: a later failure without
// Retry-After waits as the first retry does, from the initial interval.
// This is deliberate: the server has said when it expects to recover, and
// the sequence starts over from there. The wait is what the server asked
// plus a random extra of up to a second (up to the value itself, if it is
// shorter; see [RetryAfterWait]), never less than asked, so that the
// clients a server told the same thing do not all come back in the same
// instant. A Retry-After longer than [WithMaxRetryAfter] (30 s by
// default), or one that, spread, is longer than what is left of the time
// budget or of the request's deadline, is not slept on: that response is
// handed to the caller at once. Negative, past or unparsable values are
// ignored, and the computed wait applies.
//
// # Guards
//
// A Transport takes guards by where they go. [WithRequestGuards] puts them
// around each request as a whole, its retries and their waits included:
// a bulkhead that bounds the requests in flight, a rate limiter.
// [WithAttemptGuards] puts them around each attempt: a breaker that
// judges the server by every answer, a retry budget that refuses retries.
// [WithAttemptTimeout] bounds each attempt until its response's headers.
//
//	client := &http.Client{Transport: httpretry.NewTransport(http.DefaultTransport,
//		httpretry.WithRequestGuards(bulkhead.New(100)),     // at most 100 requests in flight
//		httpretry.WithAttemptGuards(
//			breaker.New(),               // each attempt: 503s trip it, 404s do not
//			budget.NewTokenBucket(),     // refuses retries, never first attempts
//		),
//	)}
//
// NewTransport builds from them one policy.Policy, which every request
// runs through: the request guards, then the Transport's one retry stage,
// of its options, then the attempt guards. What the classifier retries
// is a failure to the guards (a 503, a reset connection), what it hands
// back a success (a 404), and an attempt the request's own context ended
// is abandoned, neither. A refusal ends the request with a
// [*backoff.Error] whose Cause matches backoff.ErrRefused and the guard's
// own error (breaker.ErrCircuitOpen...), and the telemetry modules count
// it under that guard's name. The replay rules, the drain and what the
// caller gets are the same with guards as without. [PerHost] gives each
// host a guard of its own (a breaker per backend), bounded in memory.
//
// # Across tiers
//
// Every attempt carries the headers of package hop (unless
// [WithHopHeaders] turns them off): X-Attempt-Count, its number from 1, and,
// when the request's context has a deadline, X-Request-Timeout-Ms, the
// whole milliseconds left of it. A server of package httpshed reads them
// to shed retries first and to refuse at once a request it could not
// answer in time.
//
// A retryable response that carries X-Do-Not-Retry (hop.StopHeader), or
// Envoy's X-Envoy-Overloaded, is not retried: the caller gets it at once,
// and the retry stage's Cause is backoff.ErrRetriesCanceled, the attempt's
// *StatusError matching hop.ErrDoNotRetry. When the request's context
// carries a hop.Tier (the handler of an httpshed middleware's, in a
// service that calls the next), the Transport marks it when it gives up
// after retrying, on such a response, or on a guard's refusal, so that the
// service answers its own caller "do not retry" and the retries of a chain
// of services do not multiply.
//
// # Context
//
// The request's context governs: cancelling it stops a wait at once, and a
// wait that would end after its deadline is not started. Whether the
// request was cancelled is decided by the context's Err, never by the
// error's type, so net/http's own timeouts are ordinary, retryable
// failures.
//
// # Observability
//
// [WithInstrumenter] passes an Instrumenter to the core package's driver
// (of the Transport's retry stage), which reports each attempt's number
// and the wait before the next, and
// [WithLogger] logs the retries and the failures through the slog
// Instrumenter of package github.com/herdsafe/backoff/slog, under the
// operation name [WithName] sets. [AttemptStatus] adds the status: an
// Instrumenter calls it in AfterAttempt to learn the status of every
// attempt's response, the last one included, and the records of
// [WithLogger] carry it as the attribute http.status. A failed attempt's
// error is a [*StatusError] for a retryable status. The password in the
// URL's userinfo and the URL's query string are redacted from every error
// the Transport returns, its [*StatusError]s and its log records. An
// [http.Client] wraps a failed request's error in a *url.Error that names
// the URL as the client sent it, query included: unwrap it before logging
// the URL of a request that carries secrets in its query.
//
// # Testing
//
// [WithClock] takes a clock.Mock: the waits, [WithMaxElapsedTime], the
// drain's time bound and the reading of Retry-After dates then run on it,
// and a test advances it to release each wait instead of spending it.
// [WithRandom] fixes the spread of Retry-After: a source that returns 0
// obeys it exactly.
// Without WithClock the Transport uses the time package, so a test inside
// a testing/synctest bubble runs its waits in virtual time, as long as its
// base RoundTripper does no real network I/O (an httptest server's
// connections keep a bubble from advancing).
//
// Misconfiguration is reported by RoundTrip as an error matching
// [ErrInvalidConfiguration], before anything is sent.
package httpretry
