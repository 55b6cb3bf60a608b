// Package httpshed is the server's side of backing off: HTTP middleware
// that sheds the load a guard refuses, answering 503 Service Unavailable
// with a Retry-After that says, from the guard's state, when to come back.
//
// A client that backs off well still needs a server that says when to. A
// Shedder runs each request through a guard.Guard of the server's own (a
// bulkhead that bounds the requests in flight, an adaptive throttle that
// sheds as the handler fails, a circuit breaker in front of a dependency)
// and answers the requests it refuses at once, before the handler runs:
//
//	shed := httpshed.New(bulkhead.New(100)) // at most 100 requests in the handler
//	if err := shed.Validate(); err != nil {
//		log.Fatal(err)
//	}
//	http.ListenAndServe(addr, shed.Handler(mux))
//
// # Retry-After
//
// The wait a refused request is told is the one package pushback computes
// (see Shedder.RetryAfter), as grpcbackoff's server interceptors tell it
// for gRPC: WithRetryAfter's base (1 s), also the shortest wait told,
// lengthened by what the guard's state says (a breaker's time until it
// admits a probe, the load of a bulkhead or an adaptive limiter, the
// rejection probability of a throttle, a rate limiter's time until its
// next token), and spread so that the clients refused in the same instant
// are told different times: a wait of n seconds becomes each of n to 2n
// seconds with the same chance. A client of package httpretry adds up to a
// second of its own (httpretry.RetryAfterWait), which fills the seconds
// between them. The wait is at most WithMaxRetryAfter (2 minutes).
//
// # What the guard sees
//
// The guard is asked with guard.Call{Attempt: 1}: a server cannot tell a
// retry from a first request, so a retry budget has nothing to limit
// there. The handler's response is the outcome the guard records: a 5xx
// status is a failure, any other a success, a request whose client went
// away before the handler returned is abandoned (guard.Outcome.Abandoned),
// and a handler that panics is recorded with guard.ErrPanicked before the
// panic goes on to net/http. A guard's refusal is answered with the
// Shedder's status (503, or 429 with WithStatus) and Retry-After; an error
// the guard marked as the call's own failure (guard.Failure, as a chaos
// guard injects) with the same status and no Retry-After.
package httpshed
