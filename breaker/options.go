package breaker

import (
	"math"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/internal/window"
)

// Defaults of a Breaker that New is given no option for.
const (
	DefaultConsecutiveFailures = 5                // the trip rule: 5 failures in a row
	DefaultOpenDuration        = 60 * time.Second // how long the breaker stays open
	DefaultProbes              = 1                // probes admitted when half-open
	DefaultProbeSuccesses      = 1                // probe successes that close it
)

// Bounds on the windows of the failure-rate rules.
const (
	MaxWindowCalls  = 1 << 20    // the largest WithFailureRate window
	MinWindowPeriod = window.Min // the shortest WithFailureRateOver window: 10 ms
)

// Option configures a Breaker; see New. An option given a setting it
// cannot use is recorded, not applied: the Breaker then refuses every call
// with that error (see Breaker.Validate).
type Option func(*config)

// rule is a trip rule.
type rule uint8

const (
	consecutiveRule rule = iota // failures in a row
	countRule                   // failure rate over the last calls
	timeRule                    // failure rate over the last period
)

// config is a Breaker's settings, fixed once New returns.
type config struct {
	rule      rule
	threshold uint64        // consecutiveRule: failures in a row that trip it
	rate      float64       // countRule, timeRule: the failure rate that trips it
	minCalls  uint64        // countRule, timeRule: calls the window needs first
	calls     int           // countRule: the window's size
	period    time.Duration // timeRule: the window's length
	open      time.Duration
	backOff   backoff.BackOff // nil: open for open
	probes    int32
	successes int32
	slow      slowRule         // WithSlowCalls
	isFailure func(error) bool // nil: every error
	onChange  func(from, to State)
	clock     clock.Clock
	err       error // the first setting that could not be used
}

var defaults = config{
	rule:      consecutiveRule,
	threshold: DefaultConsecutiveFailures,
	open:      DefaultOpenDuration,
	probes:    DefaultProbes,
	successes: DefaultProbeSuccesses,
	clock:     setting.RealClock,
}

// fail records the first setting that cannot be used.
func (c *config) fail(format string, args ...any) { settings.Fail(&c.err, format, args...) }

// rateRule reports whether the rate and minCalls given to the failure rate
// option named name can be used, and records the error of the first that
// cannot: a rate outside (0, 1], a minCalls below 1.
func (c *config) rateRule(name string, rate float64, minCalls int) bool {
	switch {
	case !setting.Fraction(settings, &c.err, rate, name, "rate"):
		return false
	case minCalls < 1:
		c.fail("%s was given minCalls %d; it must be at least 1", name, minCalls)
		return false
	}
	return true
}

// WithConsecutiveFailures makes the breaker trip when n calls in a row
// fail. It is the default trip rule, with n = DefaultConsecutiveFailures.
// An n below 1 is reported as an invalid configuration. The last trip rule
// given replaces the others.
func WithConsecutiveFailures(n int) Option {
	return func(c *config) {
		if n < 1 {
			c.fail("WithConsecutiveFailures was given %d; it must be at least 1", n)
			return
		}
		c.rule, c.threshold = consecutiveRule, uint64(n)
	}
}

// WithFailureRate makes the breaker trip when at least the fraction rate
// of the last calls calls failed, once the window holds at least minCalls
// calls. For example WithFailureRate(0.5, 20, 100) trips when half of the
// last 100 calls failed, but not before 20 calls were recorded. The window
// starts empty whenever the breaker closes.
//
// rate must lie in (0, 1], and 1 <= minCalls <= calls <= MaxWindowCalls;
// other values are reported as an invalid configuration. The last trip
// rule given replaces the others.
func WithFailureRate(rate float64, minCalls, calls int) Option {
	return func(c *config) {
		switch {
		case !c.rateRule("WithFailureRate", rate, minCalls):
		case calls < minCalls:
			c.fail("WithFailureRate was given a window of %d calls, fewer than minCalls (%d)", calls, minCalls)
		case calls > MaxWindowCalls:
			c.fail("WithFailureRate was given a window of %d calls; at most %d are kept", calls, MaxWindowCalls)
		default:
			c.rule, c.rate, c.minCalls, c.calls = countRule, rate, uint64(minCalls), calls
		}
	}
}

// WithFailureRateOver makes the breaker trip when at least the fraction
// rate of the calls recorded over the last period failed, once at least
// minCalls calls were recorded in it. For example
// WithFailureRateOver(0.5, 20, time.Minute) trips when half of the calls of
// the last minute failed, if there were at least 20.
//
// The window is kept as 10 buckets of period/10 each, and slides by a
// bucket at a time: it covers between 9/10 of period and period. It starts
// empty whenever the breaker closes. Every call it records reads the
// breaker's clock.
//
// rate must lie in (0, 1], minCalls must be at least 1, and period at least
// MinWindowPeriod; other values are reported as an invalid configuration.
// The last trip rule given replaces the others.
func WithFailureRateOver(rate float64, minCalls int, period time.Duration) Option {
	return func(c *config) {
		switch {
		case !c.rateRule("WithFailureRateOver", rate, minCalls):
		case period < MinWindowPeriod:
			c.fail("WithFailureRateOver was given the period %v; it must be at least %v", period, MinWindowPeriod)
		default:
			c.rule, c.rate, c.minCalls, c.period = timeRule, rate, uint64(minCalls), period
		}
	}
}

// WithOpenDuration sets how long the breaker stays open before it admits a
// probe: DefaultOpenDuration unless told otherwise. Zero makes the first
// call after a trip a probe. A negative d is reported as an invalid
// configuration. With WithOpenBackOff, d is the duration used when the
// BackOff returns Stop before it named any.
func WithOpenDuration(d time.Duration) Option {
	return func(c *config) { setting.NotNegative(settings, &c.err, &c.open, d, "WithOpenDuration") }
}

// WithOpenBackOff makes the open duration grow while the dependency keeps
// failing: each time the breaker opens, from closed or again from
// half-open, it stays open for b's next wait; when it closes, b is Reset.
// A jittered b, such as an [backoff.ExponentialBackOff], also spreads the
// probes of a fleet of breakers that opened together. For example
//
//	breaker.WithOpenBackOff(backoff.NewExponentialBackOff(
//		backoff.WithInitialInterval(5*time.Second),
//		backoff.WithMultiplier(2),
//		backoff.WithMaxInterval(5*time.Minute),
//	))
//
// The breaker works on a clone of b if b has a Clone method (see [backoff.BackOff]), as
// every BackOff of package backoff does, and on b itself otherwise. It calls b
// under its lock, on the goroutine that makes the breaker open or close,
// so b must not block or call the breaker; a panic in b goes on to that
// goroutine and leaves the breaker as it was. When b returns Stop or a
// negative wait, the breaker stays open for the duration it used last. A
// nil b, or one whose Validate method reports an error, is reported as an
// invalid configuration.
func WithOpenBackOff(b backoff.BackOff) Option {
	return func(c *config) {
		if b == nil {
			c.fail("WithOpenBackOff was given a nil BackOff")
			return
		}
		if v, ok := b.(interface{ Validate() error }); ok {
			if err := v.Validate(); err != nil {
				c.fail("WithOpenBackOff: %v", err)
				return
			}
		}
		own := b
		if cl, ok := b.(interface{ Clone() backoff.BackOff }); ok {
			own = cl.Clone()
		}
		c.backOff = own
	}
}

// WithHalfOpen sets the half-open state: it admits at most probes calls in
// all, refusing the others, and closes once successes of them have
// succeeded; any probe that fails opens it again. A probe that is
// abandoned, or that a guard inside the breaker refuses, gives its place
// back. The defaults are DefaultProbes and DefaultProbeSuccesses. Values
// other than 1 <= successes <= probes are reported as an invalid
// configuration.
func WithHalfOpen(probes, successes int) Option {
	return func(c *config) {
		switch {
		case successes < 1:
			c.fail("WithHalfOpen was given %d successes; it must be at least 1", successes)
		case probes < successes:
			c.fail("WithHalfOpen was given %d probes, fewer than the %d successes it needs to close", probes, successes)
		case probes > math.MaxInt32:
			c.fail("WithHalfOpen was given %d probes; at most %d", probes, math.MaxInt32)
		default:
			c.probes, c.successes = int32(probes), int32(successes)
		}
	}
}

// WithIsFailure sets the classifier that decides whether a call's error is
// a failure of the dependency (fn returns true) or a success (false): an
// answer the caller did not want, such as a "not found", is still proof
// that the dependency works. By default every error is a failure. fn is
// asked only about non-nil errors, and never about an abandoned call or a
// refusal of a guard inside the breaker, which count as neither.
//
// fn runs on the goroutine that calls Record (or Run), with no lock
// held. If fn panics, the call counts as a failure and the panic goes on
// to that goroutine. A nil fn is reported as an invalid configuration.
func WithIsFailure(fn func(error) bool) Option {
	return func(c *config) {
		setting.NotNil(settings, &c.err, &c.isFailure, fn, "WithIsFailure", "classifier")
	}
}

// WithStateChange sets a function called after each change of state, with
// the state left and the state entered. It runs with no lock held, on the
// goroutine whose call made the change: an Allow (open to half-open), a
// Record (a trip, a failed or a closing probe), a Run, a State
// (open to half-open), or a ForceOpen, ForceClosed or Reset. So fn may call the breaker, and a slow fn delays
// only that caller; a panic in fn goes on to that caller, the change being
// made. Changes made by different goroutines may be reported concurrently
// and out of order; each call's from and to are exact, and
// Counts().Transitions counts every change. A nil fn is reported as an
// invalid configuration.
func WithStateChange(fn func(from, to State)) Option {
	return func(c *config) {
		setting.NotNil(settings, &c.err, &c.onChange, fn, "WithStateChange", "function")
	}
}

// WithClock sets the clock that times the open state and the time-based
// window, such as a *clock.Mock in a test. The default is clock.New(), the
// time package's (virtual inside a testing/synctest bubble). A nil c,
// typed or not, is reported as an invalid configuration.
func WithClock(c clock.Clock) Option {
	return func(cf *config) { settings.Clock(&cf.clock, &cf.err, c) }
}
