package limiter

import (
	"math"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/internal/queue"
	"github.com/herdsafe/backoff/internal/setting"
)

// Defaults of a Limiter that New is given no option for.
const (
	DefaultInitialLimit = 20   // the limit before anything is measured
	DefaultFloor        = 1    // the lowest limit
	DefaultCeiling      = 1000 // the highest limit

	DefaultAlpha = 3 // Vegas: below this many calls queued, the limit grows
	DefaultBeta  = 6 // Vegas: above this many calls queued, the limit shrinks

	DefaultTolerance = 1.0 // Gradient: the latency, relative to the no-load latency, taken for no queue

	DefaultDecrease = 0.9 // the factor the limit is multiplied by after a window with a failure

	DefaultWindow        = 100 * time.Millisecond // the shortest sample window
	DefaultWindowSamples = 10                     // the fewest calls a sample window holds
	DefaultBaseline      = 10 * time.Minute       // how long the no-load latency is remembered
)

// MaxLimit is the largest floor, ceiling, initial limit and queue a
// Limiter accepts.
const MaxLimit = math.MaxInt32

// algorithm is how a Limiter moves its limit: WithGradient's rule or
// WithVegas's.
type algorithm uint8

const (
	gradientRule algorithm = iota
	vegasRule
)

// Option configures a Limiter; see New. An option given a setting it
// cannot use is recorded, not applied: the Limiter then refuses every call
// with that error (see Limiter.Validate).
type Option func(*config)

// config is a Limiter's settings, fixed once New returns.
type config struct {
	floor, initial, ceiling int
	initialSet              bool

	algorithm   algorithm
	alpha, beta float64 // Vegas
	tolerance   float64 // Gradient
	decrease    float64

	window    time.Duration
	samples   int
	baseline  time.Duration
	probe     time.Duration    // between probes of the no-load latency; 0: none
	isFailure func(error) bool // nil: every error

	wait queue.Settings

	low, standard float64 // priority thresholds; 1 and 1: priorities not read

	clock clock.Clock
	err   error // the first setting that could not be used
}

// defaults returns the configuration of a Limiter given no option.
func defaults() config {
	return config{
		floor: DefaultFloor, initial: DefaultInitialLimit, ceiling: DefaultCeiling,
		algorithm: gradientRule, alpha: DefaultAlpha, beta: DefaultBeta, tolerance: DefaultTolerance,
		decrease: DefaultDecrease,
		window:   DefaultWindow, samples: DefaultWindowSamples, baseline: DefaultBaseline,
		low: 1, standard: 1,
		clock: setting.RealClock,
	}
}

// fail records the first setting that cannot be used.
func (c *config) fail(format string, args ...any) { settings.Fail(&c.err, format, args...) }

// WithFloor sets the lowest the limit goes, however slow or failing the
// dependency (default DefaultFloor, 1). It must be in [1, MaxLimit], and
// not above the ceiling (WithCeiling) or the initial limit
// (WithInitialLimit); when no initial limit is given, the initial limit is
// raised to the floor if it is below it.
func WithFloor(n int) Option {
	return func(c *config) { setting.Between(settings, &c.err, &c.floor, n, 1, MaxLimit, "WithFloor") }
}

// WithCeiling sets the highest the limit goes, however fast the dependency
// (default DefaultCeiling, 1000). It must be in [1, MaxLimit], and not
// below the floor or the initial limit; when no initial limit is given, the
// initial limit is lowered to the ceiling if it is above it.
func WithCeiling(n int) Option {
	return func(c *config) { setting.Between(settings, &c.err, &c.ceiling, n, 1, MaxLimit, "WithCeiling") }
}

// WithInitialLimit sets the limit the Limiter starts with, before it has
// measured anything (default DefaultInitialLimit, 20). It must be in [1,
// MaxLimit], and between the floor and the ceiling.
func WithInitialLimit(n int) Option {
	return func(c *config) {
		if setting.Between(settings, &c.err, &c.initial, n, 1, MaxLimit, "WithInitialLimit") {
			c.initialSet = true
		}
	}
}

// WithVegas makes the Limiter move its limit as TCP Vegas moves its
// window: at the end of each sample window it estimates the calls queued
// at the dependency as limit × (1 − no-load latency / latency), grows the
// limit while fewer than alpha × max(1, log10 limit) are queued (a
// quarter of the limit at most), shrinks it while more than beta × max(1,
// log10 limit) are (half of the limit at most), and leaves it alone in
// between (see the package documentation). The defaults are
// DefaultAlpha (3) and DefaultBeta (6). Both must be finite, alpha above 0
// and not above beta; NaN is invalid. The last of WithVegas and
// WithGradient wins.
func WithVegas(alpha, beta float64) Option {
	return func(c *config) {
		switch {
		case !(alpha > 0) || math.IsInf(alpha, 0):
			c.fail("WithVegas(%v, %v): alpha must be a positive, finite number of calls", alpha, beta)
		case !(beta > 0) || math.IsInf(beta, 0):
			c.fail("WithVegas(%v, %v): beta must be a positive, finite number of calls", alpha, beta)
		case alpha > beta:
			c.fail("WithVegas(%v, %v): alpha is above beta; the thresholds are out of order", alpha, beta)
		default:
			c.algorithm, c.alpha, c.beta = vegasRule, alpha, beta
		}
	}
}

// WithGradient makes the Limiter move its limit by the gradient of its
// latency, in the manner of Netflix's concurrency-limits: at the end of
// each sample window the limit becomes limit × g + √limit, where g is
// tolerance × the no-load latency / the latency measured, kept within
// [1/2, 1]; a decrease is smoothed unless g is 1/2 (see the package
// documentation). It is
// the default algorithm, with tolerance DefaultTolerance (1): a tolerance
// of 1.5 lets the latency rise to 1.5 times the no-load latency before the
// limit shrinks. The tolerance must be finite and at least 1; NaN is
// invalid. The last of WithVegas and WithGradient wins.
func WithGradient(tolerance float64) Option {
	return func(c *config) {
		if !(tolerance >= 1) || math.IsInf(tolerance, 0) {
			c.fail("WithGradient(%v): the tolerance must be finite and at least 1", tolerance)
			return
		}
		c.algorithm, c.tolerance = gradientRule, tolerance
	}
}

// WithDecrease sets the factor the limit is multiplied by at the end of a
// sample window in which a call failed (default DefaultDecrease, 0.9):
// the multiplicative decrease of AIMD, whatever the latency says. Which
// errors are failures is WithIsFailure's to say. The factor must be in
// (0, 1); NaN is invalid.
func WithDecrease(factor float64) Option {
	return func(c *config) {
		if setting.ProperFraction(settings, &c.err, factor, "WithDecrease", "factor") {
			c.decrease = factor
		}
	}
}

// WithWindow sets the sample window over which the Limiter measures the
// latency before it moves the limit: a window ends at the first call that
// ends once it has lasted d and holds minSamples calls, and never before
// it has lasted the mean latency of the window before it, so that each
// move of the limit is seen in the next window's latency. The defaults are
// DefaultWindow (100 ms) and DefaultWindowSamples (10). d must be
// positive, and minSamples at least 1.
func WithWindow(d time.Duration, minSamples int) Option {
	return func(c *config) {
		switch {
		case d <= 0:
			c.fail("WithWindow(%v, %d): the window must last some time", d, minSamples)
		case minSamples < 1:
			c.fail("WithWindow(%v, %d): a window holds 1 call at least", d, minSamples)
		default:
			c.window, c.samples = d, minSamples
		}
	}
}

// WithBaseline sets how long the Limiter remembers the no-load latency,
// the lowest latency it has seen (of an average over the sample windows;
// default DefaultBaseline, 10 minutes): the no-load latency is the lowest
// of the last d at least, and of the last 2d at most. A longer memory keeps the
// limit right through a long overload; a shorter one follows a dependency
// that became slower for good (a new region, a heavier query) sooner,
// since until then its new latency reads as a queue. d must be at least
// the window (WithWindow).
func WithBaseline(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.fail("WithBaseline(%v): the no-load latency must be remembered for some time", d)
			return
		}
		c.baseline = d
	}
}

// WithProbeInterval sets how often the Limiter measures the no-load
// latency again: for one sample window it lowers its limit to a few calls
// (3, or the floor if higher), which queue at no dependency worth
// limiting, takes that window's latency as the no-load latency, in place
// of what it remembered, and puts its limit back. The first probe follows
// the first window that measures a latency, so that a Limiter that starts
// above its dependency's capacity does not learn the latency of its loaded
// first windows as the no-load one, and hold a limit that keeps the
// dependency loaded for as long as it remembers it (WithBaseline). The
// next ones follow every d, spread by ±25% at random so that the
// instances of a fleet do not probe together; none while the limit is at
// the probe's or below. During a probe window, calls above the probe's
// limit queue or are refused, as at any limit: the price of a true
// baseline, which Envoy's adaptive concurrency filter pays alike.
//
// Probing is off by default (d = 0): the no-load latency is then the
// lowest the windows measured, and a Limiter that starts above its
// dependency's capacity keeps that too high for as long as it remembers it
// (give WithInitialLimit a limit the dependency can take, or turn probing
// on). A tenth of WithBaseline's duration (a minute, with the defaults) is
// a good d: a probe window a minute costs about one window in six hundred.
// d must be at least the window; negative is invalid.
func WithProbeInterval(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			c.fail("WithProbeInterval(%v): the interval must not be negative (0 turns probing off)", d)
			return
		}
		c.probe = d
	}
}

// WithIsFailure sets the classifier that decides whether a call's error is
// a failure that says the dependency is overloaded (fn returns true: a
// timeout, a 503), which shrinks the limit by WithDecrease's factor, or
// not (false: a "not found", which counts as a call that succeeded, its
// latency measured). By default every error is a failure. fn is asked only
// about non-nil errors, and never about an abandoned call or a refusal of
// a guard inside the Limiter, which count as neither.
//
// fn runs on the goroutine that calls Record (or Run), with no lock held,
// after the call's slot is freed. If fn panics, the call counts as a
// failure and the panic goes on to that goroutine. A nil fn is reported as
// an invalid configuration.
func WithIsFailure(fn func(error) bool) Option {
	return func(c *config) {
		setting.NotNil(settings, &c.err, &c.isFailure, fn, "WithIsFailure", "classifier")
	}
}

// WithQueue lets up to n callers wait, in arrival order, for a call to end
// (or for the limit to grow) when the limit is reached; a caller that
// finds n already waiting is refused with [ErrLimitExceeded]. A caller
// waits until it is admitted, its context is done, or the maximum wait
// (WithMaxWait) passes. The default, 0, is no queue: a call over the limit
// is refused at once. n must be in [0, MaxLimit]. Keep the queue short: a
// queue's wait is latency the limiter adds itself.
func WithQueue(n int) Option {
	return func(c *config) { setting.Between(settings, &c.err, &c.wait.Size, n, 0, MaxLimit, "WithQueue") }
}

// WithMaxWait bounds the time a queued caller waits: after d it is refused
// with [ErrLimitExceeded]. The wait is timed by the Limiter's clock
// (WithClock). The default, 0, sets no bound: a caller waits as long as
// its context lets it. A negative d is invalid, and so is a positive one
// without a queue (WithQueue), since nobody would wait.
func WithMaxWait(d time.Duration) Option {
	return func(c *config) { setting.NotNegative(settings, &c.err, &c.wait.MaxWait, d, "WithMaxWait") }
}

// WithPriorityThresholds makes the Limiter shed calls by the priority their
// context carries (bulkhead.WithPriority; a context with none is
// bulkhead.Standard), as a bulkhead.PriorityBulkhead does with its
// capacity, but of the current limit: a low-priority call is admitted only
// if, counting it, the calls in flight would be at most low × the limit; a
// standard one, at most standard × the limit; a critical one, at most the
// limit. Every priority may have one call in flight, however low the
// limit. A call shed by its priority is refused at once with a [ShedError]
// and never queued: only the calls that may take the whole limit (critical
// ones, and those of a threshold of 1) wait in the queue. bulkhead.DefaultLowThreshold and
// bulkhead.DefaultStandardThreshold (0.5 and 0.8) are the thresholds of a
// PriorityBulkhead.
//
// Without this option, the default, the Limiter does not read the
// context's priority, and every call may take the whole limit. Each
// threshold must be in (0, 1], and low not above standard; NaN is invalid.
func WithPriorityThresholds(low, standard float64) Option {
	return func(c *config) {
		if setting.Thresholds(settings, &c.err, low, standard, "WithPriorityThresholds") {
			c.low, c.standard = low, standard
		}
	}
}

// WithClock sets the clock the Limiter measures latency and times the
// sample windows and the queue's maximum wait on, such as a *clock.Mock in
// a test or the herd simulator's virtual clock (default clock.New(), the
// time package's clock, which runs on virtual time inside a
// testing/synctest bubble). Allow reads it once for each call it admits,
// and Record once for each call it measures; its Timer is called only for
// a caller about to queue with a maximum wait. A nil c, typed or not, is
// invalid.
func WithClock(c clock.Clock) Option {
	return func(cfg *config) { settings.Clock(&cfg.clock, &cfg.err, c) }
}

// newConfig returns the configuration of the options, over the defaults:
// the first setting that cannot be used, alone or with the others, in its
// err.
func newConfig(opts []Option) config {
	c := defaults()
	setting.Apply(settings, &c.err, "New", &c, opts)
	c.check()
	return c
}

// check reports what is wrong with the settings taken together.
func (c *config) check() {
	if !c.initialSet {
		c.initial = min(max(c.initial, c.floor), c.ceiling)
	}
	switch {
	case c.floor > c.ceiling:
		c.fail("the floor (%d) is above the ceiling (%d)", c.floor, c.ceiling)
	case c.initial < c.floor || c.initial > c.ceiling:
		c.fail("WithInitialLimit(%d) is outside the floor and the ceiling, [%d, %d]", c.initial, c.floor, c.ceiling)
	}
	c.wait.Check(settings, &c.err)
	if c.baseline < c.window {
		c.fail("WithBaseline(%v) is shorter than the window (%v)", c.baseline, c.window)
	}
	if c.probe > 0 && c.probe < c.window {
		c.fail("WithProbeInterval(%v) is shorter than the window (%v)", c.probe, c.window)
	}
}
