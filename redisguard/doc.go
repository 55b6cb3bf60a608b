// Package redisguard shares a retry budget and a circuit breaker across a
// fleet: every instance of a service that makes a guard with the same name
// decides on one state kept in Redis, so that the fleet's retries and the
// fleet's failures are counted once. A local budget protects the
// dependency from one process; N processes with local budgets still send
// N times the retries.
//
// [NewTokenBucket] is budget.NewTokenBucket's gRPC retry throttling, and
// [NewBreaker] is breaker.New's circuit breaker with its consecutive
// failures rule; they take the same options, named the same, with the
// same defaults (the ratio budget, budget.NewRatio, and the breaker's
// failure-rate and slow-call rules and growing open duration are not
// offered shared, and a shared breaker refuses the manual controls,
// ForceOpen, ForceClosed and Reset, as an invalid configuration: see
// [Breaker.ForceOpen]).
// Both are [guard.Guard] values, so a Policy takes either as it takes
// the local ones:
//
//	client := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
//	retries := redisguard.NewTokenBucket(client, "payments", redisguard.WithMaxTokens(10))
//	circuit := redisguard.NewBreaker(client, "payments", redisguard.WithConsecutiveFailures(5))
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
// failover). The breaker's times are read from the server's clock in the
// script (TIME), so instances whose clocks disagree agree on when the
// breaker opens and half-opens; an instance only measures durations it
// was told, on its own clock. Keys expire on their own (PEXPIRE, WithTTL),
// and all the keys of one name share the hash tag {name}
// ("backoff:{payments}:tokens", "backoff:{payments}:breaker"), so that
// they live in one Redis Cluster slot, as a script's keys must there.
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
// a budget.NewTokenBucket or a breaker.New of the same configuration,
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
//   - Budget: a first attempt's Allow makes none (first attempts are always
//     admitted) and its Record makes one, which sends the outcome. A
//     retry's Allow makes one, which decides and charges the retry; its
//     Record makes none (a refund is owed, and sent with the next round
//     trip). A retry is refused with no round trip while the count seen
//     last, less than WithStaleness ago, is spent.
//   - Breaker: Allow admits with no round trip while the state its last
//     round trip saw is closed and younger than WithStaleness
//     (DefaultStaleness, 100 ms), and refuses with none while the open
//     duration it was told of runs. Otherwise it makes one. A success
//     makes none while the failures in a row it saw are 0, so a healthy
//     instance makes about one round trip per staleness period, whatever
//     its traffic. A failure makes one, unless the call's Allow made one:
//     then it is sent with the next. Two kinds of call cost two round
//     trips, so that the fleet learns at once what they say: a half-open
//     probe, and the failure that trips the breaker.
//
// # Consistency
//
// The shared state is exact: every step is atomic on the server, and the
// half-open state admits WithHalfOpen's probes across the whole fleet, no
// more. What an instance acts on without a round trip is at most
// WithStaleness old: for that long after another instance trips the
// breaker, an instance may still admit calls on the closed state it saw,
// and a success of an instance that saw no failures does not reset the
// fleet's count (which makes the breaker trip no later). A failure that
// is owed reaches the fleet with the instance's next call. A budget
// refusal may be that old; an admission never is.
package redisguard
