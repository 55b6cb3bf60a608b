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
	// DefaultInFlightRatio and DefaultMinRetryConcurrency are an in-flight
	// budget's figures unless WithInFlightRatio and WithMinRetryConcurrency
	// say otherwise: Envoy's retry_budget defaults (budget_percent 20%,
	// min_retry_concurrency 3).
	DefaultInFlightRatio       = 0.2
	DefaultMinRetryConcurrency = 3
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
	kind  kind
	ratio bool // NewRatio

	maxTokens  float64
	tokenRatio float64
	isFailure  func(error) bool

	window     time.Duration
	offset     time.Duration
	minPerSec  float64
	retryRatio float64

	inFlightRatio float64
	minRetries    int64

	clock clock.Clock
	err   error // the first bad setting
}

// fail records the first bad setting.
func (c *config) fail(format string, args ...any) { settings.Fail(&c.err, format, args...) }

// kind is the kind of budget a constructor makes.
type kind uint8

const (
	kindTokens kind = iota
	kindRatio
	kindInFlight
)

// names and constructors are the kinds' names in an error.
var (
	names        = [...]string{kindTokens: "a token bucket", kindRatio: "a ratio budget", kindInFlight: "an in-flight budget"}
	constructors = [...]string{kindTokens: "NewTokenBucket", kindRatio: "NewRatio", kindInFlight: "NewInFlight"}
)

// only reports whether the budget is of kind k, and records, if not, that
// the option named name applies to k only.
func (c *config) only(k kind, name string) bool {
	if c.kind != k {
		c.fail("%s applies to %s (%s), not to %s", name, names[k], constructors[k], names[c.kind])
	}
	return c.kind == k
}

// tokensOnly and ratioOnly report an option given to the wrong budget.
func (c *config) tokensOnly(name string) bool { return c.only(kindTokens, name) }

func (c *config) ratioOnly(name string) bool { return c.only(kindRatio, name) }

// WithInFlightRatio sets the share of the calls in flight that may be
// retries in an in-flight budget, Envoy's budget_percent as a fraction
// (default DefaultInFlightRatio). It must be in [0, 1]: 0 leaves only the
// minimum (WithMinRetryConcurrency), 1 allows every call in flight to be
// a retry.
func WithInFlightRatio(r float64) Option {
	return func(c *config) {
		if c.only(kindInFlight, "WithInFlightRatio") {
			setting.Between(settings, &c.err, &c.inFlightRatio, r, 0, 1, "WithInFlightRatio")
		}
	}
}

// WithMinRetryConcurrency sets the retries an in-flight budget allows in
// flight whatever the load, Envoy's min_retry_concurrency (default
// DefaultMinRetryConcurrency), so that a client with few calls in flight
// can still retry. 0 gives no minimum; it must be in [0, 1e9].
func WithMinRetryConcurrency(n int) Option {
	return func(c *config) {
		if c.only(kindInFlight, "WithMinRetryConcurrency") {
			if n < 0 || n > maxFigure {
				c.fail("WithMinRetryConcurrency(%d): must be in [0, 1e9]", n)
				return
			}
			c.minRetries = int64(n)
		}
	}
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
// clock.New(), the time package). A token bucket and an in-flight budget
// read no clock and ignore it (a fleet-wide one of module redisguard times its way to Redis
// with it). A nil c, typed or not, is reported as
// ErrInvalidConfiguration.
func WithClock(c clock.Clock) Option {
	return func(cfg *config) { settings.Clock(&cfg.clock, &cfg.err, c) }
}

// newConfig returns the configuration of the options, over the defaults of
// the budget kind.
func newConfig(k kind, opts []Option) *config {
	c := &config{
		kind:       k,
		ratio:      k == kindRatio,
		maxTokens:  DefaultMaxTokens,
		tokenRatio: DefaultTokenRatio,
		window:     DefaultWindow,
		minPerSec:  DefaultMinRetriesPerSecond,
		retryRatio: DefaultRetryRatio,
		clock:      setting.RealClock,

		inFlightRatio: DefaultInFlightRatio,
		minRetries:    DefaultMinRetryConcurrency,
	}
	setting.Apply(settings, &c.err, constructors[k], c, opts)
	if c.ratio && c.err == nil && c.offset >= c.window {
		c.fail("WithWindowOffset was given %v; it must be shorter than the window (%v)", c.offset, c.window)
	}
	return c
}
