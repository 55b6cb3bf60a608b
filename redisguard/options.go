package redisguard

import (
	"strings"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/redis/go-redis/v9"
)

// Defaults of the options that every guard of the package takes.
const (
	// DefaultTimeout bounds each round trip to Redis: a call that Redis
	// has not answered by then is decided by the local fallback instead.
	DefaultTimeout = 5 * time.Millisecond
	// DefaultRetryInterval is how long a guard decides locally after a
	// round trip failed, before one call tries Redis again.
	DefaultRetryInterval = time.Second
	// DefaultStaleness is how old the shared state that a guard acts on
	// without a round trip may be; see WithStaleness.
	DefaultStaleness = 100 * time.Millisecond
	// DefaultTTL is how long a guard's key outlives the last call that
	// wrote it.
	DefaultTTL = 10 * time.Minute
	// DefaultKeyPrefix begins every key: "backoff:{name}:tokens".
	DefaultKeyPrefix = "backoff"
	// DefaultProbeTimeout is how long the fleet waits for the outcome of
	// a half-open probe before it gives the probe's place to another.
	DefaultProbeTimeout = 10 * time.Second
)

// An Option configures a guard of this package: its way to Redis
// (WithTimeout, WithRetryInterval, WithStaleness, WithTTL, WithKeyPrefix,
// WithOnFallback, WithOnRecover), or, with WithBreaker and WithBudget, the
// breaker or the token bucket it shares, in the options of package breaker
// or budget. An option of one guard given to the other's constructor
// (WithBudget to NewBreaker, say) is reported as an invalid configuration.
type Option func(*config)

// kind is the guard an Option is given to.
type kind uint8

const (
	budgetKind kind = iota + 1
	breakerKind
)

// config is what the options set.
type config struct {
	kind kind
	name string

	prefix     string
	timeout    time.Duration
	retryEvery time.Duration
	staleness  time.Duration
	ttl        time.Duration
	onFallback func(error)
	onRecover  func()
	clock      clock.Clock // the local guard's (breaker.WithClock, budget.WithClock)

	breaker      []breaker.Option // WithBreaker's
	budget       []budget.Option  // WithBudget's
	probeTimeout time.Duration

	// What the guard takes of its local fallback, which the options of
	// WithBreaker or WithBudget made (see package internal/fleet).
	isFailure func(error) bool
	onChange  func(from, to uint8)

	// shift is added to the server's time by the scripts: zero but in
	// this package's tests, which move the server's clock so.
	shift func() time.Duration

	nameErr error // what is wrong with the name
	err     error // the first option that could not be used
}

// fail records the first option that cannot be used.
func (c *config) fail(format string, args ...any) { settings.Fail(&c.err, format, args...) }

// duration sets *dst to d, given to the option named option, if d is at
// least lo; otherwise it records that d breaks the rule.
func (c *config) duration(dst *time.Duration, option string, d, lo time.Duration, rule string) {
	if d < lo {
		c.fail("%s was given %v; it %s", option, d, rule)
		return
	}
	*dst = d
}

// only reports whether the option name applies to the guard being made,
// and records the error if it does not.
func (c *config) only(k kind, name string) bool {
	if c.kind == k {
		return true
	}
	if k == budgetKind {
		c.fail("%s applies to a budget (NewTokenBucket or NewRatio), not to a breaker", name)
	} else {
		c.fail("%s applies to a breaker (NewBreaker), not to a budget", name)
	}
	return false
}

// newConfig returns the configuration of opts, given to constructor,
// over the defaults.
func newConfig(k kind, constructor, name string, opts []Option) *config {
	c := &config{
		kind:         k,
		name:         name,
		prefix:       DefaultKeyPrefix,
		timeout:      DefaultTimeout,
		retryEvery:   DefaultRetryInterval,
		staleness:    DefaultStaleness,
		ttl:          DefaultTTL,
		probeTimeout: DefaultProbeTimeout,
	}
	switch {
	case name == "":
		c.nameErr = settings.Invalid("the guard's name is empty")
	case strings.ContainsAny(name, "{}"):
		c.nameErr = settings.Invalid("the guard's name %q has a brace, which would break the keys' hash tag", name)
	}
	setting.Apply(settings, &c.err, constructor, c, opts)
	return c
}

// check reports, joined, all that makes a guard of client, of this
// configuration and of the local fallback local unusable: the client, the
// name, the first bad option, what local's own options refused (local
// was made by the constructor of package breaker or budget that takes
// them), and more, the constructor's own.
func (c *config) check(client redis.Scripter, local interface{ Validate() error }, more ...error) error {
	return setting.Join(append([]error{checkClient(client), c.nameErr, c.err, local.Validate()}, more...)...)
}

// key returns the guard's key with the suffix: every key of one guard
// shares the hash tag {name}, so that they live in one Redis Cluster slot.
func (c *config) key(suffix string) string {
	return c.prefix + ":{" + c.name + "}:" + suffix
}

// WithTimeout bounds each round trip to Redis (DefaultTimeout unless told
// otherwise): a call that Redis has not answered in d is decided by the
// local fallback, and the guard turns to it (see the package
// documentation). d must be positive.
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.duration(&c.timeout, "WithTimeout", d, 1, "must be positive") }
}

// WithRetryInterval sets how long a guard decides locally after a round
// trip failed (DefaultRetryInterval unless told otherwise): the first call
// after d tries Redis again, and the guard returns to the shared state if
// Redis answers. d must be positive.
func WithRetryInterval(d time.Duration) Option {
	return func(c *config) { c.duration(&c.retryEvery, "WithRetryInterval", d, 1, "must be positive") }
}

// WithStaleness sets how old the shared state a guard acts on without a
// round trip may be (DefaultStaleness unless told otherwise). A breaker
// admits calls while the state its last round trip saw is closed and
// younger than d; a budget refuses a retry without a round trip while the
// count or window its last round trip saw is spent and younger than d; a
// ratio budget sends the first attempts it counted once the last sending
// is d old. 0 makes every such decision a round trip. A negative d is an invalid configuration.
func WithStaleness(d time.Duration) Option {
	return func(c *config) { c.duration(&c.staleness, "WithStaleness", d, 0, "must not be negative") }
}

// WithTTL sets how long a guard's key outlives the last call that wrote
// it (DefaultTTL unless told otherwise); Redis then forgets it, and the
// guard starts again from a full budget or a closed breaker. A ratio
// budget's key also outlives its window, and a breaker's its open
// duration and probe timeout. d must be at
// least a millisecond.
func WithTTL(d time.Duration) Option {
	return func(c *config) { c.duration(&c.ttl, "WithTTL", d, time.Millisecond, "must be at least 1ms") }
}

// WithKeyPrefix sets the first part of the guard's keys, DefaultKeyPrefix
// unless told otherwise: the keys are "prefix:{name}:tokens" for a token
// bucket, "prefix:{name}:ratio" for a ratio budget and
// "prefix:{name}:breaker" for a breaker. It must not be empty nor hold a
// brace.
func WithKeyPrefix(p string) Option {
	return func(c *config) {
		if p == "" || strings.ContainsAny(p, "{}") {
			c.fail("WithKeyPrefix was given %q; it must be non-empty and hold no brace", p)
			return
		}
		c.prefix = p
	}
}

// WithOnFallback sets a function called with the error of the round trip
// that made the guard turn to its local fallback: once per turn, on the
// goroutine of the call that failed, with no lock held. A panic in fn goes
// on to that caller, the turn being made. A nil fn is an invalid
// configuration.
func WithOnFallback(fn func(err error)) Option {
	return func(c *config) {
		setting.NotNil(settings, &c.err, &c.onFallback, fn, "WithOnFallback", "function")
	}
}

// WithOnRecover sets a function called when the guard returns from its
// local fallback to the shared state, once per return, on the goroutine of
// the call whose round trip succeeded, with no lock held. A panic in fn
// goes on to that caller, the return being made. A nil fn is an invalid
// configuration.
func WithOnRecover(fn func()) Option {
	return func(c *config) {
		setting.NotNil(settings, &c.err, &c.onRecover, fn, "WithOnRecover", "function")
	}
}

// WithBreaker gives a shared breaker the options of package breaker that
// it shares across the fleet: the trip rules breaker.WithConsecutiveFailures,
// breaker.WithFailureRate (the fleet's last calls) and
// breaker.WithFailureRateOver (the fleet's calls of the last period, on
// the Redis server's clock), breaker.WithSlowCalls (a call's duration is
// measured on the instance's clock, from Allow to Record, modulo 2^39 µs,
// about 6 days), breaker.WithOpenDuration (on the server's clock;
// durations finer than a microsecond are cut), breaker.WithHalfOpen (the
// fleet admits that many probes in all), breaker.WithIsFailure,
// breaker.WithStateChange and breaker.WithClock, with their defaults and
// ranges. The local fallback is breaker.New with the same options, which
// reports those it cannot use. The growing open duration
// (breaker.WithOpenBackOff) is not shared: NewBreaker reports it as an
// invalid configuration. Several WithBreaker add up, in order.
//
// What breaker.WithStateChange's hook is told of are the changes of the
// shared state that a round trip of this instance made: an Allow (open to
// half-open), a Record (a trip, a failed or a closing probe). Changes made
// by the other instances of the fleet are not reported (State shows them
// once a round trip has seen them), nor those of the local fallback. The
// hook and breaker.WithIsFailure's classifier run as package breaker
// says, once per call; breaker.WithClock's clock also times the retry
// interval and the staleness.
func WithBreaker(opts ...breaker.Option) Option {
	return func(c *config) {
		if c.only(breakerKind, "WithBreaker") {
			c.breaker = append(c.breaker, opts...)
		}
	}
}

// WithBudget gives a shared budget the options of package budget: for
// NewTokenBucket, those of budget.NewTokenBucket (budget.WithMaxTokens,
// budget.WithTokenRatio, budget.WithIsFailure, budget.WithClock); for
// NewRatio, those of budget.NewRatio (budget.WithWindow,
// budget.WithMinRetriesPerSecond, budget.WithRetryRatio,
// budget.WithClock); with their defaults and ranges. The local fallback is
// budget.NewTokenBucket or budget.NewRatio with the same options, which
// reports those it cannot use, the other budget's among them.
// budget.WithIsFailure's classifier runs in Record, once per call, with no
// lock held; if it panics, the call counts neither way and the panic goes
// on. budget.WithClock's clock times the retry interval, the staleness and
// the local fallback (a shared ratio budget's window is on the Redis
// server's clock, and budget.WithWindowOffset, which could move only the
// local fallback's, is refused). Several WithBudget add up, in order.
func WithBudget(opts ...budget.Option) Option {
	return func(c *config) {
		if c.only(budgetKind, "WithBudget") {
			c.budget = append(c.budget, opts...)
		}
	}
}

// WithProbeTimeout sets how long a shared breaker's half-open state waits
// for the outcome of its probes (DefaultProbeTimeout unless told
// otherwise): past it, the places of the probes whose outcome has not
// come are given to new probes, so that an instance that died during its
// probe cannot hold the fleet's breaker half-open. A probe recorded after
// that counts for nothing. d must be at least a millisecond.
func WithProbeTimeout(d time.Duration) Option {
	return func(c *config) {
		if !c.only(breakerKind, "WithProbeTimeout") {
			return
		}
		c.duration(&c.probeTimeout, "WithProbeTimeout", d, time.Millisecond, "must be at least 1ms")
	}
}

// serverShift is the test seam that moves the server's clock, in µs.
func (c *config) serverShift() int64 {
	if c.shift == nil {
		return 0
	}
	return c.shift().Microseconds()
}

// millis returns d in whole milliseconds, at least 1.
func millis(d time.Duration) int64 {
	return max(d.Milliseconds(), 1)
}
