// Package otelbackoff reports the retries of package backoff, and the state
// of its guards, to OpenTelemetry: a span for each attempt, metrics of the
// attempts, retries, give-ups and waits, and observable metrics of
// breakers, bulkheads, retry budgets and throttles. It is a module of its
// own, so that the core never downloads an observability SDK.
//
// The package is named otelbackoff, not otel, so that it does not shadow
// go.opentelemetry.io/otel in the files that import both; the contrib
// packages of OpenTelemetry are named the same way (otelhttp, otelgrpc).
//
//	in, err := otelbackoff.New(
//		otelbackoff.WithTracerProvider(tp), // default: otel.GetTracerProvider()
//		otelbackoff.WithMeterProvider(mp),  // default: otel.GetMeterProvider()
//	)
//	...
//	user, err := backoff.Do(ctx, getUser,
//		backoff.WithInstrumenter(in.Named("load-user")),
//		backoff.WithInstrumenter(slogbackoff.New(logger).Named("load-user")))
//
// An [Instrumenter] is safe for concurrent use: make one, and give it to
// every retry, as the Instrumenter of each operation that
// [Instrumenter.Named] returns, or itself for an unnamed operation. Its
// tracer and meter are scoped [ScopeName].
//
// # Spans
//
// Each attempt is a span of kind internal, a child of the span in the
// context the retry was given. BeforeAttempt returns the context with the
// attempt's span, so the spans the operation opens nest under its attempt:
//
//	GET /users/42                  the caller's span
//	├── load-user                  attempt 1: status Error, retry.backoff_duration 0.1
//	│   └── SELECT users           the operation's own span
//	└── load-user                  attempt 2: status Unset
//	    └── SELECT users
//
// The span is named after the operation (the name given to Named), so that
// spans of different operations group apart, as OpenTelemetry's naming
// guidance and span-derived metrics want; the Instrumenter itself, for an
// unnamed operation, makes spans named [SpanName], "retry.attempt". It ends
// when the attempt does, so the waits are the gaps between the attempts'
// spans.
//
// A failed attempt's span has the status Error, with the error's message as
// the description, whether or not it will be retried: the span describes
// the attempt, and the attempt failed, as an HTTP client's span does for
// a failed request that a retrying transport then repeats. Whether the
// call recovered is told by the next attempt's span, and by
// retry.giving_up. A successful attempt leaves the status Unset, as the
// conventions ask of instrumentation. Its error is not recorded as an
// exception event: the message is in the status, and an event per failed
// attempt is a cost that a retry storm multiplies.
//
// The attributes, on the attempt's span:
//
//	retry.name              string   always   the operation's name, or "unnamed"
//	retry.num               int      always   the retry: 0 for the first attempt, k-1 for attempt k
//	error.type              string   failure  the error's type (see below)
//	retry.giving_up         bool     failure  true if no further attempt is made
//	retry.backoff_duration  float64  retried  the wait before the next attempt, s
//	retry.cause             string   gave up  why the driver gave up (see below)
//
// retry.num, error.type and retry.backoff_duration, and the span name
// "retry.attempt" of an operation without a name, are the names the
// library's design fixes; retry.num numbers the retries as the retry_num
// label of the prometheus module does, so that a span and a count of the
// same retry carry the same number.
//
// An attempt that backoff.Do does not start, because its context is done,
// is a refused attempt like one a guard refuses: it has its span, with the
// status Error, and it is the give-up, with the context's cause. When the
// driver gives up after an attempt's span has ended (the context is
// cancelled during the wait that follows it), the give-up is an event
// "retry.give_up" on the caller's span, with retry.name, retry.num (the
// retry given up on, the one after the attempts made), retry.cause, and
// error.type of the last attempt's error.
//
// # Metrics
//
// The metrics of the retries, measured with the context of the attempt
// (so that an SDK can link exemplars to its span):
//
//	backoff.attempts       counter    {attempt}  retry.name, retry.outcome
//	backoff.retries        counter    {retry}    retry.name, error.type
//	backoff.give_ups       counter    {call}     retry.name, retry.cause
//	backoff.wait.duration  histogram  s          retry.name
//
// backoff.attempts counts each attempt once, when it ends: retry.outcome is
// "success", "failure", or "refused" when the attempt was refused before it
// reached the dependency (guard.IsRefusal): by a guard in the retry stage,
// or by Do, whose context was done.
// backoff.retries counts each retry when it is scheduled, before its wait,
// as stamina counts its retries; a retry whose wait is then cut short by
// the context is counted too. backoff.give_ups counts each call that
// failed, once, wherever the driver gave up. backoff.wait.duration records
// each scheduled wait, with the buckets 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
// 0.5, 1, 2.5, 5, 10, 30, 60, 120 and 300 s: from 5 ms, below which a wait
// is as good as none, to 5 minutes, past which a Retry-After rules.
//
// The label values are bounded: operation names (which must be a bounded
// set: name operations, not requests), outcomes, causes and error types;
// never a message. The attribute sets of up to 1024 operation names, and
// of 4096 pairs of a name and an error type or a cause, are made once and
// kept; past that, a measurement makes its set anew.
//
// # Guards
//
// Observe reports the state of a guard of any kind: it registers a
// callback with the meter that reads the guard when the metrics are
// collected, on the collecting goroutine, with no goroutine of its own and
// nothing added to the guard's call path. It reads the metrics the guard
// describes itself (guard.Describer), which every guard of this
// repository does, and a guard of your own may: such a guard is observed
// as these are, with no change here. Observe takes the name the guard is
// reported under, the attribute guard.name, and returns a *Registration;
// Unregister it to stop, and the name may then be observed again. A nil
// guard, an empty name, a Description that cannot be reported, or a name
// this Instrumenter already observes a guard of the same kind under is
// reported as an error matching backoff.ErrInvalidConfiguration. The
// metrics of this repository's guards are those of prombackoff:
//
//	backoff.breaker.state                   gauge          1             breaker.state
//	backoff.breaker.transitions             counter        {transition}
//	backoff.breaker.forced_transitions      counter        {transition}
//	backoff.breaker.refusals                counter        {call}
//	backoff.breaker.calls                   counter        {call}        breaker.outcome
//	backoff.breaker.slow_calls              counter        {call}
//	backoff.bulkhead.in_flight              updowncounter  {call}
//	backoff.bulkhead.queued                 updowncounter  {call}        (Bulkhead only)
//	backoff.bulkhead.limit                  updowncounter  {call}
//	backoff.bulkhead.refusals               counter        {call}        bulkhead.priority (PriorityBulkhead only)
//	backoff.bulkhead.cancellations          counter        {call}
//	backoff.limiter.limit                   updowncounter  {call}
//	backoff.limiter.in_flight               updowncounter  {call}
//	backoff.limiter.queued                  updowncounter  {call}
//	backoff.limiter.refusals                counter        {call}        limiter.priority
//	backoff.limiter.cancellations           counter        {call}
//	backoff.budget.retries                  counter        {retry}
//	backoff.budget.refusals                 counter        {retry}
//	backoff.throttle.refusals               counter        {call}
//	backoff.throttle.rejection_probability  gauge          1
//	backoff.shedder.retries_refused         counter        {request}
//	backoff.shedder.late_refused            counter        {request}
//	backoff.shedder.queue_time              gauge          s
//	backoff.ratelimit.rate                  gauge          {call}/s
//	backoff.ratelimit.burst                 updowncounter  {call}
//	backoff.ratelimit.tokens                gauge          {token}
//	backoff.ratelimit.waiting               updowncounter  {call}
//	backoff.ratelimit.waited                counter        {call}
//	backoff.ratelimit.refusals              counter        {call}
//	backoff.shared_guard.local              gauge          1
//	backoff.shared_guard.fallbacks          counter        {fallback}
//	backoff.shared_guard.recoveries         counter        {recovery}
//	backoff.chaos.calls                     counter        {call}
//	backoff.chaos.injected_errors           counter        {call}
//	backoff.chaos.injected_delays           counter        {call}
//	backoff.per_host.hosts                  updowncounter  {host}
//
// Each has the attribute guard.name, and those listed. What they are:
//
//   - backoff.breaker.state is 1 for the breaker's current state and 0 for
//     the others, so that each state is a series: "closed", "open",
//     "half-open", and the "forced-open" and "forced-closed" that ForceOpen
//     and ForceClosed set. backoff.breaker.transitions counts its changes
//     of state, backoff.breaker.forced_transitions those made by ForceOpen,
//     ForceClosed and Reset, backoff.breaker.refusals the calls it refused,
//     backoff.breaker.calls the calls it recorded, by how it counted them
//     ("success", "failure", "neutral", "ignored"), and
//     backoff.breaker.slow_calls those slower than WithSlowCalls' duration.
//   - backoff.bulkhead.in_flight is the calls in flight,
//     backoff.bulkhead.queued the callers waiting in the queue (a
//     PriorityBulkhead has none), backoff.bulkhead.limit the capacity;
//     backoff.bulkhead.refusals counts the calls refused as full (by
//     priority for a PriorityBulkhead), backoff.bulkhead.cancellations the
//     callers turned away because their context was done.
//   - backoff.limiter.limit is the limiter's current limit, and the others
//     are a bulkhead's; its refusals are by priority, every refusal
//     "standard" for a Limiter that reads no priority.
//   - backoff.budget.retries counts the retries the budget admitted,
//     backoff.budget.refusals those it refused.
//   - backoff.throttle.refusals counts the calls the throttle rejected
//     locally; backoff.throttle.rejection_probability is the probability
//     that it rejects the next call (at most its WithMaxRejection).
//   - backoff.shedder.retries_refused counts the retries an httpshed
//     Shedder refused under pressure (WithRetryPressure),
//     backoff.shedder.late_refused the requests whose caller would not
//     wait for its queue; backoff.shedder.queue_time is that queue's time
//     (ObserveShedder).
//   - backoff.ratelimit.rate and backoff.ratelimit.burst are the rate
//     limiter's rate, in calls a second, and burst (module
//     ratelimit); backoff.ratelimit.tokens is what its bucket holds
//     (below 1 no call is admitted at once, below 0 the calls waiting have
//     reserved tokens to come), backoff.ratelimit.waiting the calls waiting
//     for their token; backoff.ratelimit.waited counts the calls admitted
//     after a wait, backoff.ratelimit.refusals those refused for want of a
//     token in time.
//   - backoff.shared_guard.local is 1 while the guard decides on its local
//     fallback, 0 while on the shared state; backoff.shared_guard.fallbacks
//     and backoff.shared_guard.recoveries count its turns to the fallback
//     and back. A shared guard's own metrics are those of the guard it
//     stands for (a breaker's, a budget's), reported by Observe.
//   - backoff.chaos.calls counts the calls a chaos.Injector was asked to
//     admit, backoff.chaos.injected_errors and .injected_delays those it
//     failed and delayed.
//   - backoff.per_host.hosts is the hosts an httpretry HostGuard keeps a
//     guard for now (each host's guard is observed on its own).
//
// # Error types and causes
//
// error.type is the error's type, never its message, named by these rules
// (or by WithErrorType's function):
//
//   - An error in the chain with an ErrorType() string method names itself,
//     as the OpenTelemetry conventions let an error do; unless it also has
//     a RetryCause() string method, as a guard's sentinel has: such an
//     error is named only where the wrappers below lead.
//   - The wrappers of packages backoff, guard and policy (Permanent's
//     mark, a guard's refusal, a *RetryAfterError, the *backoff.Error of an
//     inner retry stage) and those of fmt.Errorf with a single %w are
//     looked through; so is an error of fmt.Errorf or errors.Join that
//     wraps one error besides the marks backoff.ErrRefused,
//     backoff.ErrRetriesCanceled and backoff.ErrPermanent, such as
//     fmt.Errorf("%w: %w", backoff.ErrRetriesCanceled, err).
//   - The sentinels backoff.ErrRefused, backoff.ErrRetriesCanceled,
//     backoff.ErrPermanent, context.Canceled, context.DeadlineExceeded,
//     io.EOF and io.ErrUnexpectedEOF are named after their variable, such
//     as "context.DeadlineExceeded"; the guards' sentinels name themselves
//     so: breaker.ErrCircuitOpen, bulkhead.ErrBulkheadFull,
//     budget.ErrBudgetExhausted, throttle.ErrThrottled and
//     limiter.ErrLimitExceeded. The attempt Do refuses because its
//     context is done is "backoff.ErrRefused".
//   - Otherwise the name is the Go type's, as the conventions' Go
//     implementation gives it: "*net.OpError" for a pointer type,
//     "syscall.Errno", with the full package path, for a named type.
//
// retry.cause is one of "invalid_configuration", "permanent",
// "exhausted", "max_elapsed_time", "retries_canceled" (matched with
// errors.Is in that order); else the RetryCause() string of the first
// error in the chain with one: a guard's, such as "circuit_open",
// "bulkhead_full", "budget_exhausted", "throttled" or "limit_exceeded";
// else "canceled" or "deadline_exceeded". A guard's refusal (which
// matches backoff.ErrRefused and wraps the guard's error) is named by the
// guard's error, as "circuit_open" for a breaker's, and "refused" for a
// guard of your own whose error names no cause; any other cause (a
// context's custom cause) is named by its type, as error.type is.
//
// # Logs
//
// The Instrumenter of package github.com/herdsafe/backoff/slog
// (slogbackoff) writes its records with the attempt's context, which
// BeforeAttempt made, when it is given to the same retry: a slog.Handler
// that reads the span from the context (trace.SpanContextFromContext)
// puts the attempt's trace and span IDs on each record. See the package's
// example.
//
// # Panics
//
// An operation that panics without a policy.Recover stage inside the retry
// stage gets no AfterAttempt from the core, so its attempt's span is never
// ended, and so never exported, and the attempt is not counted. A panic in
// WithErrorType's function, or in the SDK, goes on to the caller of the
// retry, as a panic in any Instrumenter does. A breaker's state-change hook
// may run while the metrics are collected (see Breaker.ReadMetrics in package breaker), on the
// goroutine of the collection: a panic there goes on to the reader's
// Collect, or to the goroutine of a periodic reader.
package otelbackoff
