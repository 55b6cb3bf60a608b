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
// The guard is asked with the request's attempt number, which a client of
// package httpretry sends in hop.AttemptHeader (X-Attempt-Count; a request
// without it is a first attempt), so that a retry budget of the server's
// own limits retries. The handler's response is the outcome the guard
// records: a 5xx status is a failure, any other a success, a request whose
// client went away before the handler returned is abandoned
// (guard.Outcome.Abandoned), and a handler that panics is recorded with
// guard.ErrPanicked before the panic goes on to net/http. A guard's
// refusal is answered with the Shedder's status (503, or 429 with
// WithStatus) and Retry-After; an error the guard marked as the call's own
// failure (guard.Failure, as a chaos guard injects) with the same status
// and no Retry-After.
//
// # Retries first, and no work nobody waits for
//
// Before the guard is asked, the Shedder reads what the request tells of
// its caller (package hop) and refuses two kinds of request at once,
// without calling the handler, with its status and hop.StopHeader
// (X-Do-Not-Retry), which tells the client, and every tier above it, not
// to retry:
//
//   - a retry (an attempt number above 1) while the guard's pressure
//     (pushback.Pressure: a bulkhead's places taken and queued over its
//     capacity) is at WithRetryPressure's threshold or above (0.8 by
//     default), so that a retry never takes the place of a user's first
//     call ("overloaded");
//   - a request whose caller will wait less (hop.TimeoutHeader,
//     X-Request-Timeout-Ms) than requests now wait in the guard's queue
//     (Shedder.QueueTime), or not at all: a server that works on calls
//     their callers have abandoned does no useful work ("deadline").
//
// A request that carries a deadline is served with it: the handler's
// context ends when the caller stops waiting, so a bulkhead's queue, and
// the handler's own calls to the tier below, stop with it.
//
// # One retry layer, not three
//
// The handler's context carries a hop.Tier. An httpretry Transport that
// the handler calls the tier below with, with that context, marks it when
// it gives up after retrying, when a guard of its own refused the call, or
// when the tier below said not to retry; the Shedder then adds
// hop.StopHeader to the handler's 5xx (or 429) answer, unless the handler
// set it itself. So in a chain of services built with httpretry and
// httpshed only the lowest tier that retries does: three tiers of three
// tries over a failing dependency send it 3 calls per user call, not 27.
// See package hop, and the guide docs/fleet.md.
package httpshed
