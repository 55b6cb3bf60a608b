package budget

import (
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/internal/window"
)

// The defaults of the two budgets; see the package documentation for
// where they come from.
const (
	// DefaultMaxTokens and DefaultTokenRatio are a token bucket's figures
	// unless WithMaxTokens and WithTokenRatio say otherwise: the example of
	// gRFC A6.
	DefaultMaxTokens  = 10
	DefaultTokenRatio = 0.1

	// DefaultWindow, DefaultMinRetriesPerSecond and DefaultRetryRatio are a
	// ratio budget's figures unless WithWindow, WithMinRetriesPerSecond and
	// WithRetryRatio say otherwise: Finagle's RetryBudget defaults.
	DefaultWindow              = 10 * time.Second
	DefaultMinRetriesPerSecond = 10
	DefaultRetryRatio          = 0.2
)

// MinWindow is the shortest window WithWindow accepts, 10 ms: the window
// is kept as ten slots, and a slot shorter than a millisecond would make
// the slots' 32-bit epoch numbers wrap within days.
const MinWindow = window.Min

// maxFigure and maxRetryRatio bound the figures the options take, so that
// their scaled integer forms cannot overflow; maxRetryRatio is Finagle's
// bound on percentCanRetry.
const (
	maxFigure     = 1e9
	maxRetryRatio = 1000
)

// An Option configures a Budget. Options given to the constructor of the
// other kind of budget (WithMaxTokens to NewRatio, say) are reported as
// ErrInvalidConfiguration, except WithClock, which a token bucket, reading
// no clock, ignores.
type Option func(*config)

// config is what the options set.
type config struct {
	ratio bool // NewRatio; otherwise NewTokenBucket

	maxTokens  float64
	tokenRatio float64
	isFailure  func(error) bool

	window     time.Duration
	offset     time.Duration
	minPerSec  float64
	retryRatio float64

	clock clock.Clock
	err   error // the first bad setting
}

// fail records the first bad setting.
func (c *config) fail(format string, args ...any) { settings.Fail(&c.err, format, args...) }

// tokensOnly and ratioOnly report an option given to the wrong budget.
func (c *config) tokensOnly(name string) bool {
	if c.ratio {
		c.fail("%s applies to a token bucket (NewTokenBucket), not to a ratio budget", name)
	}
	return !c.ratio
}

func (c *config) ratioOnly(name string) bool {
	if !c.ratio {
		c.fail("%s applies to a ratio budget (NewRatio), not to a token bucket", name)
	}
	return c.ratio
}

// WithMaxTokens sets a token bucket's capacity and starting count, gRPC's
// maxTokens (default DefaultMaxTokens). Retries are allowed while the
// count is greater than half of it. Only three decimal places count, as in
// gRPC; it must be at least 0.001 and at most 1e9.
func WithMaxTokens(n float64) Option {
	return func(c *config) {
		if c.tokensOnly("WithMaxTokens") {
			setting.Between(settings, &c.err, &c.maxTokens, n, 0.001, maxFigure, "WithMaxTokens")
		}
	}
}

// WithTokenRatio sets the tokens a token bucket gets back for each
// successful call, gRPC's tokenRatio (default DefaultTokenRatio). Only
// three decimal places count, as in gRPC; it must be at least 0.001 and at
// most 1e9.
func WithTokenRatio(r float64) Option {
	return func(c *config) {
		if c.tokensOnly("WithTokenRatio") {
			setting.Between(settings, &c.err, &c.tokenRatio, r, 0.001, maxFigure, "WithTokenRatio")
		}
	}
}

// WithIsFailure sets which errors take a token from a token bucket: those
// fn returns true for. The others count neither way, as gRPC counts only
// the status codes its retry policy retries (an INVALID_ARGUMENT says
// nothing about the server's health). By default every error counts. It
// takes the classifier breaker.WithIsFailure takes; an error fn returns
// false for is not a success here, it is not counted.
//
// Whatever fn says, an abandoned call (Outcome.Abandoned) and an inner
// guard's refusal (guard.IsRefusal) count neither way: the dependency
// did not answer. fn runs in Record, on the goroutine of the call, with no
// lock held; if it panics, the call is counted neither way and the panic
// goes on to the caller. A nil fn is reported as ErrInvalidConfiguration.
func WithIsFailure(fn func(error) bool) Option {
	return func(c *config) {
		if c.tokensOnly("WithIsFailure") {
			setting.NotNil(settings, &c.err, &c.isFailure, fn, "WithIsFailure", "classifier")
		}
	}
}

// WithWindow sets how long a ratio budget remembers requests and retries,
// Finagle's ttl (default DefaultWindow). The window slides in tenths of
// its length: a count leaves it between 9/10 of the window and the whole
// window after it was made. It must be at least MinWindow.
func WithWindow(d time.Duration) Option {
	return func(c *config) {
		if c.ratioOnly("WithWindow") && window.Check(settings, &c.err, "WithWindow", d) {
			c.window = d
		}
	}
}

// WithWindowOffset lays a ratio budget's window out as though the budget
// had been made d earlier, with nothing counted: its counts leave the
// window d mod (window/10) sooner than those of a budget made at the same
// instant without it. Budgets made together, by every process of a deploy
// or every client of a simulation, otherwise drop their counts at the
// same instants, and so allow their bursts of retries together; a random
// d per process, drawn from [0, window), spreads them as processes started
// at different times are spread. The default is 0; d must lie in
// [0, window).
func WithWindowOffset(d time.Duration) Option {
	return func(c *config) {
		if !c.ratioOnly("WithWindowOffset") {
			return
		}
		setting.NotNegative(settings, &c.err, &c.offset, d, "WithWindowOffset")
	}
}

// WithMinRetriesPerSecond sets the retries a ratio budget allows whatever
// the traffic, Finagle's minRetriesPerSec (default
// DefaultMinRetriesPerSecond): the window holds a reserve of n times its
// length in seconds, rounded down. 0 gives no reserve. It must be in
// [0, 1e9].
func WithMinRetriesPerSecond(n float64) Option {
	return func(c *config) {
		if c.ratioOnly("WithMinRetriesPerSecond") {
			setting.Between(settings, &c.err, &c.minPerSec, n, 0, maxFigure, "WithMinRetriesPerSecond")
		}
	}
}

// WithRetryRatio sets the retries a ratio budget allows per request in
// its window, on top of the reserve: Finagle's percentCanRetry, a fraction
// despite its name (default DefaultRetryRatio: one retry per five
// requests). It may exceed 1 (2 allows two retries per request); it must
// be in [0, 1000], as in Finagle. WithRetryRatio(0) with WithMinRetriesPerSecond(0)
// allows no retry at all.
func WithRetryRatio(r float64) Option {
	return func(c *config) {
		if c.ratioOnly("WithRetryRatio") {
			setting.Between(settings, &c.err, &c.retryRatio, r, 0, maxRetryRatio, "WithRetryRatio")
		}
	}
}

// WithClock makes a ratio budget measure its window on c, such as a
// *clock.Mock in a test or the herd simulator's virtual clock (default
// clock.New(), the time package). A token bucket reads no clock and
// ignores it (a fleet-wide one of module redisguard times its way to Redis
// with it). A nil c, typed or not, is reported as
// ErrInvalidConfiguration.
func WithClock(c clock.Clock) Option {
	return func(cfg *config) { settings.Clock(&cfg.clock, &cfg.err, c) }
}

// newConfig returns the configuration of the options, over the defaults of
// the budget kind.
func newConfig(ratio bool, opts []Option) *config {
	c := &config{
		ratio:      ratio,
		maxTokens:  DefaultMaxTokens,
		tokenRatio: DefaultTokenRatio,
		window:     DefaultWindow,
		minPerSec:  DefaultMinRetriesPerSecond,
		retryRatio: DefaultRetryRatio,
		clock:      setting.RealClock,
	}
	constructor := "NewTokenBucket"
	if ratio {
		constructor = "NewRatio"
	}
	setting.Apply(settings, &c.err, constructor, c, opts)
	if c.ratio && c.err == nil && c.offset >= c.window {
		c.fail("WithWindowOffset was given %v; it must be shorter than the window (%v)", c.offset, c.window)
	}
	return c
}
