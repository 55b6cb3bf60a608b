// Package ratelimit admits calls at a rate, with a burst: a token bucket
// that fills at the rate up to the burst, each admitted call taking one
// token. It is the rate limiter of golang.org/x/time/rate, driven on the
// library's clock (WithClock), as a guard.Guard: usable on its own with
// [Limiter.Run], or as a stage of a policy with policy.Guard (package
// github.com/herdsafe/backoff/policy).
//
// A call that finds no token is refused at once with [ErrRateLimited], or,
// with [WithWait] or [WithMaxWait], waits for its turn on the clock's
// timer: until its token comes, its context is done, or its turn is
// further away than the longest wait allowed, whichever comes first.
//
//	lim := ratelimit.New(100, 10) // 100 calls a second, bursts of 10
//	p := policy.New(
//		policy.Guard(lim),                     // the whole call: one token however many attempts
//		policy.Retry(backoff.WithMaxTries(3)),
//	)
//	err := p.DoErr(ctx, call)
//	if errors.Is(err, ratelimit.ErrRateLimited) {
//		// over the rate: shed
//	}
//
// A refusal says when the next token comes: its RetryAfter() time.Duration
// method (see ErrRateLimited), which a server's shedding middleware
// (package httpshed, grpcbackoff's server interceptors) tells its clients
// as the wait before they come back.
//
// Put it outside the retry stage to limit the calls, inside it to limit
// the attempts (each retry then takes a token of its own, and a refusal
// stops the retry stage at once, its Cause the refusal).
//
// It is a module of its own, github.com/herdsafe/backoff/ratelimit, so
// that the core module does not depend on golang.org/x/time.
//
// # Cost
//
// An admitted call that found a token reads the clock once and takes the
// Limiter's mutex once, and, under it, the x/time limiter's (Allow); Record
// does nothing. The clock is read under the mutex so that x/time is given
// one time after another, never an earlier one after a later: a time read
// before another caller's but used after it would credit the time between
// twice. A refusal in waiting mode reserves its token and gives it back
// under the same mutex, so that it gives it all back. Under contention the
// rate holds, with any number of callers on any number of Ps (the bench
// module's stress tests measure it). It allocates
// nothing. A refusal allocates nothing either, but through Run, guard.Run
// or a policy, the mark that makes it a refusal. A call that waits
// allocates x/time's reservation and the clock's timer.
package ratelimit
