// Package redisguard shares a retry budget and a circuit breaker across a
// fleet: every instance of a service that makes a guard with the same name
// decides on one state kept in Redis, so that the fleet's retries and the
// fleet's failures are counted once. A local budget protects the
// dependency from one process; N processes with local budgets still send
// N times the retries.
//
// [NewTokenBucket] is budget.NewTokenBucket's gRPC retry throttling,
// [NewRatio] budget.NewRatio's ratio of retries to requests over a window
// of time, and [NewBreaker] breaker.New's circuit breaker with each of its
// trip rules: failures in a row, a failure rate over the last calls or
// over a period, and slow calls. They take the options of package budget
// and breaker themselves, given with [WithBudget] and [WithBreaker], with
// their defaults, which the local guard each keeps as its fallback
// validates (the breaker's growing open duration, breaker.WithOpenBackOff,
// is not offered shared, and a shared breaker refuses the manual controls,
// ForceOpen, ForceClosed and Reset, as an invalid configuration: see
// [Breaker.ForceOpen]). All are [guard.Guard] values, so a Policy takes
// them as it takes the local ones:
//
//	client := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
//	retries := redisguard.NewTokenBucket(client, "payments", redisguard.WithBudget(budget.WithMaxTokens(10)))
//	circuit := redisguard.NewBreaker(client, "payments", redisguard.WithBreaker(breaker.WithConsecutiveFailures(5)))
//	p := policy.New(
//		policy.Guard(circuit),
//		policy.Retry(backoff.WithMaxTries(3)),
//		policy.Guard(retries),
//	)
//
// # On the server
//
// Each decision is one Lua script, run atomically on the server: loaded
// once and called by its SHA-1 (EVALSHA), and sent whole again (EVAL) when
// the server answers NOSCRIPT (after a restart, a SCRIPT FLUSH, a
// failover, another node of a cluster). The times of the breaker and of
// the ratio budget's window are read from the server's clock in the
// script (TIME), so instances whose clocks disagree agree on when the
// breaker opens and half-opens and on what the window holds; an instance
// only measures durations, on its own clock: those it was told, a slow
// call's, and the age of what it sends late. Keys expire on their own
// (PEXPIRE, WithTTL), and all the keys of one guard share the hash tag
// {name}: "backoff:{payments}:tokens" for a token bucket,
// "backoff:{payments}:ratio" for a ratio budget, and
// "backoff:{payments}:breaker" with, for a failure-rate rule,
// "backoff:{payments}:window" for a breaker. So they live in one Redis
// Cluster slot, as a script's keys must there, and a *redis.ClusterClient
// serves the guards as a *redis.Client does (any redis.Scripter does,
// redis.UniversalClient among them).
//
// # When Redis fails
//
// Redis failing or slow never fails or stalls a call. Each round trip is
// bounded by WithTimeout (DefaultTimeout, 5 ms); the client must honour
// context deadlines (ContextTimeoutEnabled, which the constructors check
// for go-redis's clients), or its own ReadTimeout would decide. A
// client's first round trip also opens its connection, which may take
// longer than the timeout with a remote server: ping the client once at
// start, or keep idle connections (MinIdleConns). A round trip that fails, for any reason, turns the guard to its local fallback:
// a budget.NewTokenBucket, budget.NewRatio or breaker.New of the same configuration,
// made with the guard and kept for its life, which decides every call from
// then on. The turn calls WithOnFallback's hook with the error, and counts
// in [Link].Fallbacks. After WithRetryInterval (DefaultRetryInterval, 1 s)
// the next call that needs the shared state tries Redis again, one call
// for all the callers; if Redis answers, the guard returns to the shared
// state (WithOnRecover's hook, [Link].Recoveries), and if not it stays
// local for another interval. A call admitted on the shared state and
// recorded after Redis failed is counted by the fallback. The guard starts
// no goroutine.
//
// # What it costs
//
// A guard adds at most one round trip to an admitted call, and none to
// most:
//
//   - Token bucket: a first attempt's Allow makes none (first attempts are
//     always admitted) and its Record makes one, which sends the outcome.
//     A retry's Allow makes one, which decides and charges the retry; its
//     Record makes none (a refund is owed, and sent with the next round
//     trip). A retry is refused with no round trip while the count seen
//     last, less than WithStaleness ago, is spent.
//   - Ratio budget: a first attempt's Allow counts it, and makes a round
//     trip that sends the count only when the last sending is WithStaleness
//     old, so a busy instance makes about one per staleness period; its
//     Record makes none. A retry's Allow makes one, which decides and
//     counts the retry, and is refused with no round trip while the window
//     seen last, less than the staleness ago, would refuse it.
//   - Breaker: Allow admits with no round trip while the state its last
//     round trip saw is closed and younger than WithStaleness
//     (DefaultStaleness, 100 ms), and refuses with none while the open
//     duration it was told of runs. Otherwise it makes one. A success
//     makes none while the failures in a row it saw are 0, so a healthy
//     instance makes about one round trip per staleness period, whatever
//     its traffic. A failure makes one, unless the call's Allow made one:
//     then it is sent with the next. With a failure rate, every outcome
//     counts, and every one is owed, sent with the round trip of the next
//     Allow that finds its view stale: a healthy instance still makes
//     about one round trip per staleness period. Two kinds of call cost
//     two round trips, so that the fleet learns at once what they say: a
//     half-open probe, and the failure (or slow call) that may trip the
//     breaker.
//
// # Consistency
//
// The shared state is exact: every step is atomic on the server, and the
// half-open state admits breaker.WithHalfOpen's probes across the whole fleet, no
// more. What an instance acts on without a round trip is at most
// WithStaleness old: for that long after another instance trips the
// breaker, an instance may still admit calls on the closed state it saw,
// and a success of an instance that saw no failures does not reset the
// fleet's count (which makes the breaker trip no later). An outcome that
// is owed reaches the fleet with the instance's next round trip, and so
// does a ratio budget's count of first attempts: a window over time
// counts them in the slot of when the first of them was, by the age the
// instance measured; the window of the last calls counts an instance's
// batch in no particular order among itself. A budget refusal may be
// that old; an admission never is.
package redisguard
