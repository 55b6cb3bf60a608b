package hedge

import (
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/setting"
)

// config is what the options set.
type config struct {
	delay       time.Duration
	delaySet    bool
	maxAttempts int
	clock       clock.Clock
	classifiers []func(error) bool
	budget      guard.Guard
	discard     any // a func(T), checked against the call's T by Do
	err         error
}

// Option configures a [Hedger].
type Option func(*config)

// DefaultMaxAttempts is the number of attempts a call may make, the first
// included, unless WithMaxAttempts says otherwise: one hedge.
const DefaultMaxAttempts = 2

// MaxAttempts is the largest number of attempts [WithMaxAttempts] accepts.
// Every attempt is a request in flight to the dependency and a goroutine
// of its own; gRPC's hedging policy caps them at 5, so this bound only
// catches a setting that cannot be meant.
const MaxAttempts = 1000

// WithDelay sets how long an attempt may run before the next one starts:
// attempt k starts d after attempt k-1 did (or was suppressed by the
// budget), while no attempt has succeeded. Hedging pays when d is about
// the dependency's 95th percentile latency: then about one call in twenty
// makes a second attempt. A d of 0 starts every attempt at once; a
// negative d is reported as [backoff.ErrInvalidConfiguration].
func WithDelay(d time.Duration) Option {
	return func(c *config) {
		c.delaySet = setting.NotNegative(settings, &c.err, &c.delay, d, "WithDelay")
	}
}

// WithMaxAttempts sets how many attempts a call may make in all, the first
// included (default [DefaultMaxAttempts]). 1 makes no hedge; an n below 1
// or above [MaxAttempts] is reported as [backoff.ErrInvalidConfiguration].
// A call allocates for the attempts it starts, not for n.
func WithMaxAttempts(n int) Option {
	return func(c *config) {
		setting.Between(settings, &c.err, &c.maxAttempts, n, 1, MaxAttempts, "WithMaxAttempts")
	}
}

// WithClock sets the clock that measures the delay, such as a *clock.Mock
// in a test (default clock.New(), the time package). A nil c, typed or
// not, is reported as [backoff.ErrInvalidConfiguration].
func WithClock(c clock.Clock) Option {
	return func(cf *config) { settings.Clock(&cf.clock, &cf.err, c) }
}

// WithRetryable sets a classifier of failed attempts, as gRPC's hedging
// policy classifies status codes: an error fn accepts (returns true for)
// starts the next attempt at once, without waiting for the delay; an error
// it rejects is fatal: the call ends at once with Cause
// [backoff.ErrPermanent] and the attempts in flight are cancelled.
//
// Without a classifier a failed attempt ends, and the others go on: the
// next still starts when the delay passes. Either way some errors are
// fatal before any classifier is asked, those that stop a retry stage at
// once: an error that matches [backoff.ErrPermanent] (a
// [backoff.Permanent] error), [backoff.ErrRetriesCanceled] or
// [backoff.ErrRefused] (a guard's refusal, as guard.Run returns it), and,
// from the inner Policy, an *backoff.Error whose Cause is a guard's
// refusal ([guard.IsRefusal]), ErrPermanent, ErrRetriesCanceled or
// ErrInvalidConfiguration.
//
// Several classifiers add up: an error is retryable if any accepts it.
// They run on the goroutine that called Do; a panic in one goes on to
// the caller, after the attempts in flight are cancelled. A nil fn is
// reported as [backoff.ErrInvalidConfiguration].
func WithRetryable(fn func(error) bool) Option {
	return func(c *config) {
		if fn == nil {
			c.fail("WithRetryable was given a nil classifier")
			return
		}
		c.classifiers = append(c.classifiers, fn)
	}
}

// WithBudget sets a guard, such as a retry budget, that is asked to admit
// each extra attempt: g.Allow is called with the call's context and
// guard.Call{Attempt: k} before attempt k (k ≥ 2; the first attempt is
// never asked). A refusal suppresses that attempt only: it is not made,
// the attempts in flight go on (the first among them), and the next one is
// asked for when the delay passes again. An admitted attempt's outcome is
// recorded once, when it returns, on its own goroutine: Abandoned is set
// for an attempt whose context was done by then (a loser cancelled after
// another won), so that a guard can tell it from a failure.
//
// Allow is called on the goroutine that called Do and should not
// block: one that does delays the call until it returns. A panic in Allow
// goes on to the caller; a panic in Record, which runs on an attempt's
// goroutine, ends the program. If the call ended in failure because
// attempts were refused, its Cause is the guard's latest refusal, as
// guard.Run returns one: an error that matches [backoff.ErrRefused] and
// wraps the guard's (errors.Is finds budget.ErrBudgetExhausted in it).
//
// A nil g, typed or not, or one that implements [guard.Validator] and
// reports an error, is reported as [backoff.ErrInvalidConfiguration].
func WithBudget(g guard.Guard) Option {
	return func(c *config) {
		switch isNil, err := guard.Check(g); {
		case isNil:
			c.fail("WithBudget was given a nil guard.Guard")
		case err != nil:
			c.fail("WithBudget was given a Guard that reports: %w", err)
		default:
			c.budget = g
		}
	}
}

// WithDiscard sets a function that releases the result of an attempt that
// succeeded but lost, such as an *http.Response to close: every successful
// result is either returned by Do or passed to fn, exactly once. fn
// runs on the losing attempt's goroutine, usually after Do has
// returned; a panic in it ends the program, as any goroutine's panic does.
//
// fn's argument type must be the call's result type: a Hedger with
// WithDiscard serves Do for that type only, and reports any other as
// [backoff.ErrInvalidConfiguration] before running anything. A nil fn is
// reported as ErrInvalidConfiguration.
func WithDiscard[T any](fn func(T)) Option {
	return func(c *config) {
		if fn == nil {
			c.fail("WithDiscard was given a nil function")
			return
		}
		c.discard = fn
	}
}

// fail records the first option that cannot be used.
func (c *config) fail(format string, args ...any) { settings.Fail(&c.err, format, args...) }
