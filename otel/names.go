package otelbackoff

import "go.opentelemetry.io/otel/attribute"

// ScopeName is the instrumentation scope of the tracer and the meter the
// package takes from the providers.
const ScopeName = "github.com/herdsafe/backoff/otel"

// SpanName is the name of the attempts' spans of an unnamed operation: of
// the Instrumenter itself. The attempts of an operation named with Named
// are named after it.
const SpanName = "retry.attempt"

// Unnamed is the retry.name of an unnamed operation: of the Instrumenter
// itself, rather than of one that Named returns.
const Unnamed = "unnamed"

// Attribute keys of the spans, span events and measurements. The package
// documentation says which carries which.
const (
	// NameKey is the operation's name, given to Named, or Unnamed.
	NameKey = attribute.Key("retry.name")
	// RetryNumKey is the number of the retry an attempt's span is: 0 for
	// the first attempt, which is no retry, and k−1 for attempt k, as
	// prombackoff's retry_num numbers the retries. On the give-up event it
	// is the retry given up on during its wait (0: the call gave up before
	// its first attempt).
	RetryNumKey = attribute.Key("retry.num")
	// BackoffDurationKey is the wait before the next attempt, in seconds.
	BackoffDurationKey = attribute.Key("retry.backoff_duration")
	// GivingUpKey says whether the driver makes no further attempt after
	// a failed one.
	GivingUpKey = attribute.Key("retry.giving_up")
	// CauseKey is why the driver gave up, as a short name such as
	// "exhausted" (see the package documentation).
	CauseKey = attribute.Key("retry.cause")
	// OutcomeKey is how an attempt ended: "success", "failure" or
	// "refused".
	OutcomeKey = attribute.Key("retry.outcome")
	// ErrorTypeKey is the semantic conventions' error.type: the Go type of
	// a failed attempt's error, never its message.
	ErrorTypeKey = attribute.Key("error.type")
	// GuardKey is the name under which a guard is observed.
	GuardKey = attribute.Key("guard.name")
	// BreakerStateKey is a breaker's state: "closed", "open",
	// "half-open", "forced-open" or "forced-closed".
	BreakerStateKey = attribute.Key("breaker.state")
	// BreakerOutcomeKey is how a breaker recorded a call: "success",
	// "failure", "neutral" or "ignored" (see breaker.Counts).
	BreakerOutcomeKey = attribute.Key("breaker.outcome")
	// PriorityKey is the priority of the calls a priority bulkhead
	// refused: "low", "standard" or "critical".
	PriorityKey = attribute.Key("bulkhead.priority")
	// LimiterPriorityKey is the priority of the calls an adaptive
	// concurrency limiter refused: "low", "standard" or "critical".
	LimiterPriorityKey = attribute.Key("limiter.priority")
)

// The span event recorded on the caller's span when the driver gives up
// outside an attempt.
const giveUpEvent = "retry.give_up"

// Names of the instruments.
const (
	attemptsName = "backoff.attempts"
	retriesName  = "backoff.retries"
	giveUpsName  = "backoff.give_ups"
	waitName     = "backoff.wait.duration"

	breakerStateName       = "backoff.breaker.state"
	breakerTransitionsName = "backoff.breaker.transitions"
	breakerForcedName      = "backoff.breaker.forced_transitions"
	breakerRefusalsName    = "backoff.breaker.refusals"
	breakerCallsName       = "backoff.breaker.calls"
	breakerSlowName        = "backoff.breaker.slow_calls"

	bulkheadInFlightName      = "backoff.bulkhead.in_flight"
	bulkheadQueuedName        = "backoff.bulkhead.queued"
	bulkheadLimitName         = "backoff.bulkhead.limit"
	bulkheadRefusalsName      = "backoff.bulkhead.refusals"
	bulkheadCancellationsName = "backoff.bulkhead.cancellations"

	limiterLimitName         = "backoff.limiter.limit"
	limiterInFlightName      = "backoff.limiter.in_flight"
	limiterQueuedName        = "backoff.limiter.queued"
	limiterRefusalsName      = "backoff.limiter.refusals"
	limiterCancellationsName = "backoff.limiter.cancellations"

	budgetRetriesName  = "backoff.budget.retries"
	budgetRefusalsName = "backoff.budget.refusals"

	throttleRefusalsName    = "backoff.throttle.refusals"
	throttleProbabilityName = "backoff.throttle.rejection_probability"

	sharedLocalName      = "backoff.shared_guard.local"
	sharedFallbacksName  = "backoff.shared_guard.fallbacks"
	sharedRecoveriesName = "backoff.shared_guard.recoveries"
)
