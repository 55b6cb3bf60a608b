// Package httpretry retries HTTP requests that failed for a transient
// reason, without ever resending what is unsafe to resend.
//
// Its [Transport] wraps any [http.RoundTripper], so any code that accepts an
// [*http.Client] gains retries with one line:
//
//	client := &http.Client{Transport: httpretry.NewTransport(http.DefaultTransport)}
//
// By default a request is tried at most 3 times, with full-jitter
// exponential waits from 100 ms, each capped at 5 s (see [DefaultBackOff]).
// It is retried after the transient failures [DefaultPolicy] recognizes:
// network errors worth retrying and the statuses 408, 429, 502, 503 and 504.
//
// # What is replayed
//
// The replay rules are those net/http applies itself. Only GET, HEAD,
// OPTIONS and TRACE requests, and requests carrying an Idempotency-Key or
// X-Idempotency-Key header, are retried; [WithRetryableMethods] and
// [WithIdempotencyKeyHeader] change that. A request body is resent only
// through [http.Request.GetBody] (which [http.NewRequest] sets for in-memory
// bodies); a body that cannot be recreated is never resent, and no body is
// ever buffered to make it replayable. A retryable response to such a
// request is handed to the caller as it is; a retryable transport error
// comes back matching [ErrBodyNotReplayable].
//
// An Idempotency-Key header is only a promise the client makes: a retry is
// safe only if the server honours it. No retry can give exactly-once
// delivery: a request that timed out may have been carried out.
//
// # What the caller gets
//
// Transport keeps the [http.RoundTripper] contract: exactly one of the
// response and the error is non-nil, the caller's request is never
// modified, its body is always closed, and a Transport is safe for
// concurrent use. Each request gets its own backoff state.
//
// When retries run out on a retryable status, the caller gets the last
// response, its body unread, and a nil error, as net/http would. When they
// run out on a transport error, the error is a [*backoff.Error] that matches
// [backoff.ErrExhausted] and wraps the last transport error. Intermediate
// responses are drained (at most 4 KiB) and closed, so their connections
// are reused.
//
// On 429 and 503, a Retry-After header (delay-seconds, or an HTTP-date in
// any format [http.ParseTime] accepts) replaces the computed wait. A
// Retry-After longer than [WithMaxRetryAfter] (30 s by default) is not
// obeyed: that response is handed to the caller at once.
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
// [WithInstrumenter], [WithLogger] and [WithName] pass through to the core
// package's instrumentation; a failed attempt's error is a [*StatusError]
// for a status, so an Instrumenter can read the status code. The password
// in the URL's userinfo and the URL's query string are redacted from every
// error message and log line the Transport produces.
//
// Misconfiguration is reported by RoundTrip as an error matching
// [ErrInvalidConfiguration], before anything is sent.
package httpretry
