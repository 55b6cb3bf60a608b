package httpretry

import (
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/policy"
)

// WithRequestGuards puts guards around each request as a whole, its
// retries and their waits included: each guard is asked once a request,
// before its first attempt, and told how the request ended. That is where
// a bulkhead bounds the requests in flight, and a rate limiter the
// requests a second, so that the retries of a request do not count
// against it:
//
//	client := &http.Client{Transport: httpretry.NewTransport(http.DefaultTransport,
//		httpretry.WithRequestGuards(bulkhead.New(100)), // at most 100 requests in flight
//	)}
//
// Guards are listed outermost first, and each WithRequestGuards adds its
// guards inside those given before. A guard sees the request fail when the
// Transport gives up on it after a response or an error the classifier
// retries (see WithRetryable), and succeed when it gets a response the
// classifier does not retry (a 404). Its refusal ends the request before
// anything is sent, with a *backoff.Error whose Cause matches
// backoff.ErrRefused and the guard's own error (bulkhead.ErrBulkheadFull,
// ratelimit's...), and no attempt.
//
// A nil guard, typed or not, is invalid, and so is one whose Validate
// method reports an error: every RoundTrip then fails with an error
// matching ErrInvalidConfiguration that names this option.
func WithRequestGuards(gs ...guard.Guard) Option {
	gs = append([]guard.Guard(nil), gs...)
	return func(c *config) { c.requestGuards = c.guards("WithRequestGuards", c.requestGuards, gs) }
}

// WithAttemptGuards puts guards around each attempt of a request: each
// guard is asked before every attempt, with the attempt's number
// (guard.Call.Attempt), and told how the attempt ended. That is where a
// breaker judges the server by every answer it gives, and a retry budget
// refuses retries, never first attempts:
//
//	client := &http.Client{Transport: httpretry.NewTransport(http.DefaultTransport,
//		httpretry.WithAttemptGuards(
//			breaker.New(),               // 503s trip it, 404s do not
//			budget.NewTokenBucket(),     // refuses retries once they are too many
//		),
//	)}
//
// Guards are listed outermost first, and each WithAttemptGuards adds its
// guards inside those given before. A guard sees an attempt fail when the
// Transport would retry it (see WithRetryable): a 503 or a reset
// connection is a failure, a 404 a success, and an attempt the request's
// own context ended is abandoned (guard.Outcome.Abandoned), neither. A
// refusal ends the request at once, with a *backoff.Error whose Cause
// matches backoff.ErrRefused and the guard's error
// (breaker.ErrCircuitOpen, budget.ErrBudgetExhausted...) and whose LastErr
// is the last attempt's error: a retry refused after a retryable response
// gets that response's *StatusError, since the response was drained for
// the retry. A guard that can refuse a retry before the wait for it
// (guard.Prechecker, as a token-bucket budget does) is asked before the
// wait, so that the caller does not wait for a retry that cannot be made.
// PerHost gives each host a guard of its own.
//
// A nil guard, typed or not, is invalid, and so is one whose Validate
// method reports an error: every RoundTrip then fails with an error
// matching ErrInvalidConfiguration that names this option.
func WithAttemptGuards(gs ...guard.Guard) Option {
	gs = append([]guard.Guard(nil), gs...)
	return func(c *config) { c.attemptGuards = c.guards("WithAttemptGuards", c.attemptGuards, gs) }
}

// WithAttemptTimeout bounds each attempt by d, until its response's
// headers arrive: an attempt still waiting for them after d is abandoned
// and, as any timeout, retried if the request may be; the guards of
// WithAttemptGuards see it fail. The response's body is not bounded: the
// caller reads it with the request's own context, after RoundTrip has
// returned. The whole request, its waits included, is bounded by the
// request's context (or http.Client.Timeout) and WithMaxElapsedTime. The
// default, 0, sets no bound; a negative d is invalid.
func WithAttemptTimeout(d time.Duration) Option {
	return func(c *config) {
		setting.NotNegative(settings, &c.err, &c.attemptTimeout, d, "WithAttemptTimeout")
	}
}

// guards returns dst with gs, the guards given to option, added after the
// ones it holds; it records a guard that cannot be used as the first
// invalid setting.
func (c *config) guards(option string, dst, gs []guard.Guard) []guard.Guard {
	for i, g := range gs {
		switch isNil, err := guard.Check(g); {
		case isNil && g == nil:
			c.fail("%s was given a nil guard.Guard (guard %d)", option, i+1)
		case isNil:
			c.fail("%s was given a nil %T (guard %d)", option, g, i+1)
		case err != nil:
			c.fail("%s was given a %T that cannot be used (guard %d): %s", option, g, i+1, setting.Reason(err))
		default:
			dst = append(dst, g)
		}
	}
	return dst
}

// build returns the Policy each request of the Transport runs through:
// the request guards, outermost first, then the one retry stage, of the
// options, then the attempt guards and the attempt's timeout. status says
// whether an Instrumenter or the logger reads AttemptStatus.
func (c *config) build(status bool) (*policy.Policy, error) {
	ro := c.retryOptions(status)
	if err := backoff.NewRetrier(ro...).Validate(); err != nil {
		return nil, err
	}
	stages := make([]policy.Stage, 0, len(c.requestGuards)+len(c.attemptGuards)+2)
	for _, g := range c.requestGuards {
		stages = append(stages, policy.Guard(g))
	}
	stages = append(stages, policy.Retry(ro...))
	for _, g := range c.attemptGuards {
		stages = append(stages, policy.Guard(g))
	}
	if c.attemptTimeout > 0 {
		stages = append(stages, policy.Timeout(c.attemptTimeout))
	}
	return policy.New(stages...), nil
}
