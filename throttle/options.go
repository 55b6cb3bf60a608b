package throttle

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/internal/window"
)

// The defaults, from the SRE book.
const (
	// DefaultK is the multiplier of accepts unless WithK says otherwise.
	DefaultK = 2
	// DefaultWindow is the window unless WithWindow says otherwise: the
	// book's "last two minutes".
	DefaultWindow = 2 * time.Minute
	// DefaultMaxRejection is the highest rejection probability unless
	// WithMaxRejection says otherwise: half the calls still reach the
	// backend, however badly it failed, so that the Throttle learns of its
	// recovery within a window (see the package documentation).
	DefaultMaxRejection = 0.5
	// DefaultMinRate is the request rate, per second over the window,
	// below which the Throttle rejects nothing unless WithMinRate says
	// otherwise: 0, it may reject whatever the rate.
	DefaultMinRate = 0
)

// MinWindow is the shortest window WithWindow accepts, 10 ms: the window
// is kept as ten slots, and a slot shorter than a millisecond would make
// the slots' 32-bit epoch numbers wrap within days.
const MinWindow = window.Min

// An Option configures a Throttle.
type Option func(*config)

// config is what the options set.
type config struct {
	k        float64
	window   time.Duration
	offset   time.Duration
	accepted func(error) bool
	random   func() float64
	clock    clock.Clock
	maxP     float64 // WithMaxRejection's
	minRate  float64 // WithMinRate's
	err      error   // the first bad setting
}

// fail records the first bad setting.
func (c *config) fail(format string, args ...any) { settings.Fail(&c.err, format, args...) }

// WithK sets the multiplier of accepts in the rejection probability
// (default DefaultK, the book's 2): the Throttle rejects nothing while
// requests are at most k times the accepts. A lower k sheds sooner, a
// higher one lets more load reach the backend. It must be at least 1 and
// finite: below 1 the Throttle would reject calls while the backend
// accepts every one.
func WithK(k float64) Option {
	return func(c *config) {
		if math.IsNaN(k) || k < 1 || math.IsInf(k, 0) {
			c.fail("WithK(%v): must be at least 1 and finite", k)
			return
		}
		c.k = k
	}
}

// WithMaxRejection caps the rejection probability at p (default
// DefaultMaxRejection, 0.5): however many of the calls the backend
// refused, at least a share 1 − p of the calls reach it, so that the
// Throttle sees it recover. Without a cap, the book's rule lets the
// probability climb close to 1 in a long outage; every call it rejects
// then counts as a request that was not accepted, and the Throttle keeps
// rejecting most calls long after the backend recovered. Envoy's
// admission control (max_rejection_probability) and failsafe-go's
// adaptive throttler keep the same kind of cap. Raise it (0.8, 0.9) to
// shed more of an outage's load, at the cost of a slower recovery (the
// package documentation says how much); 1 leaves the book's rule
// uncapped. p must lie in (0, 1].
func WithMaxRejection(p float64) Option {
	return func(c *config) {
		if !(p > 0 && p <= 1) {
			c.fail("WithMaxRejection(%v): must lie in (0, 1]", p)
			return
		}
		c.maxP = p
	}
}

// WithMinRate makes the Throttle reject nothing while the requests in its
// window come to fewer than perSecond a second (over the whole window):
// at a low rate, a few failures say little about the backend, and
// rejecting the rare calls of a quiet client only delays what it learns
// (Envoy's admission control: rps_threshold). The default is
// DefaultMinRate, 0: it may reject at any rate. perSecond must be 0 or
// more, and finite.
func WithMinRate(perSecond float64) Option {
	return func(c *config) {
		if !(perSecond >= 0) || math.IsInf(perSecond, 0) {
			c.fail("WithMinRate(%v): must be 0 or more, and finite", perSecond)
			return
		}
		c.minRate = perSecond
	}
}

// WithWindow sets how long the Throttle remembers requests and accepts
// (default DefaultWindow). The window slides in tenths of its length: a
// count leaves it between 9/10 of the window and the whole window after
// it was made. It must be at least MinWindow.
func WithWindow(d time.Duration) Option {
	return func(c *config) {
		if window.Check(settings, &c.err, "WithWindow", d) {
			c.window = d
		}
	}
}

// WithWindowOffset lays the Throttle's window out as though it had been
// made d earlier, with nothing counted: its counts leave the window d mod
// (window/10) sooner than those of a Throttle made at the same instant
// without it. Throttles made together, by every process of a deploy or
// every client of a simulation, otherwise forget their counts at the same
// instants; a random d per process, drawn from [0, window), spreads them
// as processes started at different times are spread. The default is 0;
// d must lie in [0, window).
func WithWindowOffset(d time.Duration) Option {
	return func(c *config) {
		setting.NotNegative(settings, &c.err, &c.offset, d, "WithWindowOffset")
	}
}

// WithAccepted makes the errors fn returns true for count as accepts: the
// backend processed the call and answered with an error that is not an
// overload (a not found, an invalid argument). By default only a success
// is an accept. fn runs in Record, on the goroutine of the call, with no
// lock held; if it panics, the call counts as a request that was not
// accepted, and the panic goes on to the caller. A nil fn is reported as
// ErrInvalidConfiguration.
func WithAccepted(fn func(error) bool) Option {
	return func(c *config) {
		setting.NotNil(settings, &c.err, &c.accepted, fn, "WithAccepted", "classifier")
	}
}

// WithRandom sets the source of the draws that decide a rejection: fn
// returns a number in [0, 1), and a call is rejected if it is below the
// rejection probability. It is called only when that probability is above
// 0, concurrently from the goroutines of the calls, with no lock held, so
// it must be safe for concurrent use (wrap a *rand.Rand in a mutex; a
// fixed sequence makes a test deterministic). If it panics, the call is
// not counted and the panic goes on to the caller. The default is
// math/rand/v2's Float64. A nil fn is reported as ErrInvalidConfiguration.
func WithRandom(fn func() float64) Option {
	return func(c *config) {
		setting.NotNil(settings, &c.err, &c.random, fn, "WithRandom", "function")
	}
}

// WithClock makes the Throttle measure its window on c, such as a
// *clock.Mock in a test or the herd simulator's virtual clock (default
// clock.New(), the time package). A nil c, typed or not, is reported as
// ErrInvalidConfiguration.
func WithClock(c clock.Clock) Option {
	return func(cfg *config) { settings.Clock(&cfg.clock, &cfg.err, c) }
}

// newConfig returns the configuration of the options, over the defaults.
func newConfig(opts []Option) *config {
	c := &config{k: DefaultK, window: DefaultWindow, random: rand.Float64, clock: setting.RealClock, maxP: DefaultMaxRejection, minRate: DefaultMinRate}
	setting.Apply(settings, &c.err, "New", c, opts)
	if c.err == nil && c.offset >= c.window {
		c.fail("WithWindowOffset was given %v; it must be shorter than the window (%v)", c.offset, c.window)
	}
	return c
}
