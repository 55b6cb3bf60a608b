// Package prombackoff counts the retries of package backoff, and reports
// the state of its guards, in Prometheus metrics, as the Python library
// stamina counts its retries in stamina_retries_total. It is a module of its
// own, so that the core never downloads a metrics library.
//
// The package is named prombackoff, not prometheus, so that it does not
// shadow github.com/prometheus/client_golang/prometheus in the files that
// import both.
//
//	in, err := prombackoff.New(registry, prombackoff.WithNamespace("myapp"))
//	...
//	reg, err := in.Observe("users-db", cb) // reg.Unregister() to stop
//	...
//	user, err := backoff.Do(ctx, loadUser,
//		backoff.WithInstrumenter(in.Named("load-user")))
//
// New registers the retries' metrics on the prometheus.Registerer it is
// given (prometheus.DefaultRegisterer, or a registry of your own); the
// Observe registers a collector per guard on the same one. An
// [Instrumenter] is safe for concurrent use: make one, and give it to every
// retry, as the Instrumenter of each operation that [Instrumenter.Named]
// returns, or itself for an unnamed operation.
//
// # Metrics
//
// Every name starts with the namespace, [DefaultNamespace] ("backoff")
// unless WithNamespace says otherwise: with WithNamespace("myapp"), the
// retries are counted in myapp_retries_total. Units are in the names, in
// base units (seconds); counters end in _total.
//
//	backoff_attempts_total   counter    name, outcome
//	backoff_retries_total    counter    name, retry_num, error_type
//	backoff_give_ups_total   counter    name, cause
//	backoff_wait_seconds     histogram  name
//
// retries_total is stamina's counter, with stamina's labels (its callable
// is our name): it is incremented when a retry is scheduled, after a
// failed attempt and before its wait; not for the first attempt, not when
// the driver gives up. A retry whose wait is then cut short by the context
// is counted too, as in stamina, whose hooks run before the wait.
// attempts_total counts each attempt once, when it ends, by outcome:
// "success", "failure", or "refused" when it was refused before it reached
// the dependency (guard.IsRefusal): by a guard in the retry stage, or by
// backoff.Do, whose context was done; once
// a name has been seen, each of its outcomes has a series, if only at 0,
// so that rates over them are defined. give_ups_total counts each call
// that failed, once, wherever the driver gave up. wait_seconds records
// each scheduled wait, with the buckets 0.005, 0.01, 0.025, 0.05, 0.1,
// 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120 and 300 s: from 5 ms, below which a
// wait is as good as none, to 5 minutes, past which a Retry-After rules.
//
// # Guards
//
// Observe reports the state of a guard of any kind: it registers a
// collector that reads the guard when the registry is scraped, on the
// scraping goroutine, with no goroutine of its own and nothing added to the
// guard's call path. It reads the metrics the guard describes itself
// (guard.Describer), which every guard of this repository does, and a
// guard of your own may: such a guard is observed as these are, with no
// change here. Observe takes the name the guard is reported under, the
// label name (a constant label of each of its metrics, so that the
// registry itself refuses a second guard of the same kind and name in the
// same namespace), and returns a *Registration; Unregister it to stop, and
// the name may then be observed again. A nil guard, an empty name, a
// Description that cannot be reported, or a name the registry refuses is
// reported as an error matching backoff.ErrInvalidConfiguration. The
// metrics of this repository's guards are those of otelbackoff:
//
//	backoff_breaker_state                   gauge    state
//	backoff_breaker_transitions_total       counter
//	backoff_breaker_forced_transitions_total counter
//	backoff_breaker_refusals_total          counter
//	backoff_breaker_calls_total             counter  outcome
//	backoff_breaker_slow_calls_total        counter
//	backoff_bulkhead_in_flight              gauge
//	backoff_bulkhead_queued                 gauge    (Bulkhead only)
//	backoff_bulkhead_limit                  gauge
//	backoff_bulkhead_refusals_total         counter  priority ("" for a Bulkhead)
//	backoff_bulkhead_cancellations_total    counter
//	backoff_limiter_limit                   gauge
//	backoff_limiter_in_flight               gauge
//	backoff_limiter_queued                  gauge
//	backoff_limiter_refusals_total          counter  priority
//	backoff_limiter_cancellations_total     counter
//	backoff_budget_retries_total            counter
//	backoff_budget_refusals_total           counter
//	backoff_throttle_refusals_total         counter
//	backoff_throttle_rejection_probability  gauge
//	backoff_shedder_retries_refused_total   counter
//	backoff_shedder_late_refused_total      counter
//	backoff_shedder_queue_time              gauge
//	backoff_ratelimit_rate                  gauge
//	backoff_ratelimit_burst                 gauge
//	backoff_ratelimit_tokens                gauge
//	backoff_ratelimit_waiting               gauge
//	backoff_ratelimit_waited_total          counter
//	backoff_ratelimit_refusals_total        counter
//	backoff_shared_guard_local              gauge
//	backoff_shared_guard_fallbacks_total    counter
//	backoff_shared_guard_recoveries_total   counter
//	backoff_chaos_calls_total               counter
//	backoff_chaos_injected_errors_total     counter
//	backoff_chaos_injected_delays_total     counter
//	backoff_per_host_hosts                  gauge
//
// Each has the label name, and those listed. What they are:
//
//   - breaker_state is 1 for the breaker's current state and 0 for the
//     others, so that each state is a series: closed, open, half-open, and
//     the forced-open and forced-closed that ForceOpen and ForceClosed set.
//     breaker_transitions_total counts its changes of state,
//     breaker_forced_transitions_total those made by ForceOpen, ForceClosed
//     and Reset, breaker_refusals_total the calls it refused,
//     breaker_calls_total the calls it recorded, by how it counted them
//     (outcome success, failure, neutral or ignored), and
//     breaker_slow_calls_total those slower than WithSlowCalls'
//     duration.
//   - bulkhead_in_flight is the calls in flight, bulkhead_queued the
//     callers waiting in the queue (a PriorityBulkhead has none),
//     bulkhead_limit the capacity; bulkhead_refusals_total counts the calls
//     refused as full (by priority for a PriorityBulkhead: low, standard,
//     critical), bulkhead_cancellations_total the callers turned away
//     because their context was done. Both kinds have the same metrics, so
//     that both can be observed on one registry, under different names.
//   - limiter_limit is the limiter's current limit, and the others are a
//     bulkhead's; its refusals are by priority, every refusal standard for
//     a Limiter that reads no priority.
//   - budget_retries_total counts the retries the budget admitted,
//     budget_refusals_total those it refused.
//   - throttle_refusals_total counts the calls the throttle rejected
//     locally; throttle_rejection_probability is the probability, from 0 to
//     1, that it rejects the next call (at most its WithMaxRejection).
//   - shedder_retries_refused_total counts the retries an httpshed Shedder
//     refused under pressure (WithRetryPressure),
//     shedder_late_refused_total the requests whose caller would not wait
//     for its queue; shedder_queue_time is that queue's time, in seconds
//     (ObserveShedder).
//   - ratelimit_rate and ratelimit_burst are the rate limiter's rate, in
//     calls a second, and burst (module ratelimit);
//     ratelimit_tokens is what its bucket holds (below 1 no call is
//     admitted at once, below 0 the calls waiting have reserved tokens to
//     come), ratelimit_waiting the calls waiting for their token;
//     ratelimit_waited_total counts the calls admitted after a wait,
//     ratelimit_refusals_total those refused for want of a token in time.
//   - shared_guard_local is 1 while the guard decides on its local
//     fallback, 0 while on the shared state; shared_guard_fallbacks_total
//     and shared_guard_recoveries_total count its turns to the fallback and
//     back. A shared guard's own metrics are those of the guard it stands
//     for (a breaker's, a budget's), reported by Observe.
//   - chaos_calls_total counts the calls a chaos.Injector was asked to
//     admit, chaos_injected_errors_total and chaos_injected_delays_total
//     those it failed and delayed.
//   - per_host_hosts is the hosts an httpretry HostGuard keeps a guard for
//     now (each host's guard is observed on its own).
//
// # Label values
//
// Every label has a bounded set of values:
//
//   - name is the operation's name (the name given to Named), or [Unnamed]
//     ("unnamed") for the Instrumenter itself. Names must be a bounded
//     set: name operations, not requests. The series of up to 1024 names
//     are kept at hand; past that, each measurement looks its series up in
//     the vectors.
//   - retry_num is the number of the retry, from 1 (the retry after the
//     first attempt), capped by WithMaxRetryNum (DefaultMaxRetryNum, 10;
//     at most MaxRetryNum, 1000): "1" to "9", then "10+" for every later
//     retry.
//   - error_type is the type of the attempt's error, never its message (or
//     what WithErrorType's function says). An error in the chain with an
//     ErrorType() string method names itself (one that also has a
//     RetryCause() string method, a guard's sentinel, only where the
//     wrappers lead); the wrappers of packages
//     backoff, guard and policy (Permanent's mark, a guard's refusal, a
//     *RetryAfterError, the *backoff.Error of an inner retry stage) and of
//     fmt.Errorf with a single %w are looked through, and so is an error of
//     fmt.Errorf or errors.Join that wraps one error besides the marks
//     backoff.ErrRefused, backoff.ErrRetriesCanceled and
//     backoff.ErrPermanent; the sentinels backoff.ErrRefused,
//     backoff.ErrRetriesCanceled, backoff.ErrPermanent, context.Canceled,
//     context.DeadlineExceeded, io.EOF and io.ErrUnexpectedEOF are named
//     after their variable, and the guards' sentinels
//     (breaker.ErrCircuitOpen, bulkhead.ErrBulkheadFull,
//     budget.ErrBudgetExhausted, throttle.ErrThrottled,
//     limiter.ErrLimitExceeded) name themselves so ("context.DeadlineExceeded"; the attempt Do refuses
//     because its context is done is "backoff.ErrRefused"); any other
//     error is named after its Go type: "*net.OpError" for a pointer type,
//     "syscall.Errno", with the full package path, for a named type. These
//     are OpenTelemetry's rules for error.type, and the otel module's.
//   - cause is why the driver gave up: "invalid_configuration",
//     "permanent", "exhausted", "max_elapsed_time" or "retries_canceled",
//     matched with errors.Is in that order; else the RetryCause() string
//     of the first error in the chain with one, a guard's: "circuit_open",
//     "bulkhead_full", "budget_exhausted", "throttled", "limit_exceeded";
//     else "canceled" or "deadline_exceeded". A guard's refusal (which
//     matches backoff.ErrRefused and wraps the guard's error) is named by
//     the guard's error, as "circuit_open" for a breaker's, and "refused"
//     for a guard of your own whose error names no cause; any other
//     cause (a context's custom cause) is named by its type, as error_type
//     is.
//
// # Panics
//
// An operation that panics without a policy.Recover stage inside the retry
// stage gets no AfterAttempt from the core, so its attempt is not counted.
// A panic in WithErrorType's function goes on to the caller of the retry,
// as a panic in any Instrumenter does. A breaker's state-change hook may
// run during a scrape (see Breaker.ReadMetrics in package breaker), in a
// goroutine of the registry's Gather, which recovers nothing: a hook that
// panics there ends the program.
package prombackoff
