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
	err      error // the first bad setting
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
	c := &config{k: DefaultK, window: DefaultWindow, random: rand.Float64, clock: setting.RealClock}
	setting.Apply(settings, &c.err, "New", c, opts)
	if c.err == nil && c.offset >= c.window {
		c.fail("WithWindowOffset was given %v; it must be shorter than the window (%v)", c.offset, c.window)
	}
	return c
}
