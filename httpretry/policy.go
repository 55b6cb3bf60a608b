package httpretry

import (
	"context"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/policy"
)

// WithPolicy makes the Transport run each request through p instead of
// its own Policy, so that guards see its requests: a bulkhead that bounds
// the requests in flight, a breaker that sees each attempt, a budget that
// refuses retries. p must hold exactly one retry stage, made by Retry: it
// retries, judges and drains as the Transport's own does, and the stages
// placed inside it see each attempt, the ones outside it the whole
// request. The Transport's judging is p's innermost function: one attempt,
// which sends the request and returns nil for a response it hands to the
// caller, a *StatusError for a retryable response, or the transport error.
//
//	p := policy.New(
//		policy.Guard(bulkhead.New(100)),       // at most 100 requests in flight
//		httpretry.Retry(),                     // the Transport's retry stage
//		policy.Guard(breaker.New()),           // each attempt: 503s trip it, 404s do not
//		policy.Guard(budget.NewTokenBucket()), // refuses retries, never first attempts
//	)
//	client := &http.Client{Transport: httpretry.NewTransport(http.DefaultTransport, httpretry.WithPolicy(p))}
//
// A guard sees an attempt as failed when the Transport would retry it (see
// WithRetryable): a 503 or a connection reset is a failure, a 404 a
// success, and an attempt the request's own context ended is abandoned
// (guard.Outcome.Abandoned), neither. A refusal ends the request with a
// *backoff.Error whose Cause matches backoff.ErrRefused and the guard's
// error (breaker.ErrCircuitOpen, budget.ErrBudgetExhausted...), and whose
// LastErr is the last attempt's error: a retry refused after a retryable
// response gets that response's *StatusError, since the response was
// drained for the retry. An Instrumenter of the retry stage counts the
// refusals of the guards inside it under their own cause
// (give_ups_total{cause="circuit_open"} with prombackoff); one outside it
// refuses before the stage starts, so count those with the telemetry
// modules' Observe methods.
//
// A Timeout stage bounds what it encloses until the response's headers
// arrive: the Transport sends each attempt with a context that follows the
// attempt's while the attempt runs and the request's own afterwards, so
// that the caller can read the body after the stages have returned. A
// Fallback stage cannot make a response: a call it turns into a success
// without one fails with an error matching ErrInvalidConfiguration, and
// when the Transport holds the last response, RoundTrip returns it
// whatever a Fallback around the retry stage returned.
//
// A Policy without a retry stage made by Retry, or with another retry
// stage inside or around it, is reported by RoundTrip as an error matching
// ErrInvalidConfiguration as soon as the Transport sees it: before
// anything is sent when there is no such stage, or two of them; before the
// request is sent again when another retry stage repeats it. A nil p is
// invalid, and so is WithPolicy given with an option that configures the
// Transport's own retry stage (WithBackOff, WithMaxTries...): give that
// option to Retry. An invalid p (see policy.New) makes every RoundTrip fail
// with its error, before anything is sent.
func WithPolicy(p *policy.Policy) Option {
	return func(c *config) {
		c.transport("WithPolicy")
		setting.NotNil(settings, &c.err, &c.policy, p, "WithPolicy", "*policy.Policy")
	}
}

// Retry returns the retry stage of a Policy for WithPolicy: a retry stage
// of package policy (policy.Retry) with a Transport's defaults (at most
// DefaultMaxTries attempts, DefaultBackOff's waits, DefaultMaxElapsedTime
// in all) and its way of judging and draining responses, as the options
// that configure a retry stage change them: WithBackOff, WithMaxTries,
// WithMaxElapsedTime, WithInstrumenter, WithLogger, WithName and
// WithClock. An option that configures the Transport (WithRetryable,
// WithMaxRetryAfter...) goes to NewTransport; given here, it makes the
// stage invalid, and policy.New reports it, as it reports any invalid
// option: every call through the Policy fails with an error matching
// ErrInvalidConfiguration, before anything is sent.
//
// The stage may be used in several policies, and one Policy by several
// Transports. Through a Policy called directly, with no Transport, it is
// a retry stage like any other, with a Transport's defaults.
func Retry(opts ...Option) policy.Stage {
	c := newConfig()
	setting.Apply(settings, &c.err, "Retry", &c, opts)
	switch {
	case c.err != nil:
		return invalidStage(c.err)
	case c.transportOpt != "":
		return invalidStage(settings.Invalid("%s configures a Transport, not its retry stage: give it to httpretry.NewTransport", c.transportOpt))
	}
	return policy.Retry(c.stageOptions(true)...)
}

// invalidStage returns a stage that makes a Policy invalid with err:
// policy.Guard reports the error of a guard's Validate so (see
// policy.Guard), for a stage of any kind.
func invalidStage(err error) policy.Stage { return policy.Guard(invalidGuard{err}) }

// invalidGuard is a guard whose Validate reports err; a Policy never calls
// its other methods.
type invalidGuard struct{ err error }

var _ guard.Validator = invalidGuard{}

func (g invalidGuard) Validate() error { return g.err }

func (g invalidGuard) Allow(ctx context.Context, _ guard.Call) (guard.Permit, error) {
	return guard.Permit{}, g.err
}

func (invalidGuard) Record(guard.Permit, guard.Outcome) {}
