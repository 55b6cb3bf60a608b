package redisguard

import (
	"math"
	"strings"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
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

// An Option configures a guard of this package. The options named after
// an option of package budget or breaker mean what it means there, and
// take the same values; an option of one guard given to the other's
// constructor (WithMaxTokens to NewBreaker, say) is reported as an
// invalid configuration, as is any value the local package would refuse.
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
	clock      clock.Clock

	maxTokens  float64
	tokenRatio float64
	isFailure  func(error) bool

	threshold    int
	open         time.Duration
	probes       int
	successes    int
	onChange     func(from, to breaker.State)
	probeTimeout time.Duration

	// shift is added to the server's time by the breaker's script: zero
	// but in this package's tests, which move the server's clock so.
	shift func() time.Duration

	err error // the first setting that could not be used
}

// fail records the first setting that cannot be used.
func (c *config) fail(format string, args ...any) {
	if c.err == nil {
		c.err = invalid(format, args...)
	}
}

// only reports whether the option name applies to the guard being made,
// and records the error if it does not.
func (c *config) only(k kind, name string) bool {
	if c.kind == k {
		return true
	}
	if k == budgetKind {
		c.fail("%s applies to a budget (NewTokenBucket), not to a breaker", name)
	} else {
		c.fail("%s applies to a breaker (NewBreaker), not to a budget", name)
	}
	return false
}

// newConfig returns the configuration of opts over the defaults, which
// are those of the local guard of the same kind.
func newConfig(k kind, name string, opts []Option) *config {
	c := &config{
		kind:         k,
		name:         name,
		prefix:       DefaultKeyPrefix,
		timeout:      DefaultTimeout,
		retryEvery:   DefaultRetryInterval,
		staleness:    DefaultStaleness,
		ttl:          DefaultTTL,
		maxTokens:    budget.DefaultMaxTokens,
		tokenRatio:   budget.DefaultTokenRatio,
		threshold:    breaker.DefaultConsecutiveFailures,
		open:         breaker.DefaultOpenDuration,
		probes:       breaker.DefaultProbes,
		successes:    breaker.DefaultProbeSuccesses,
		probeTimeout: DefaultProbeTimeout,
	}
	switch {
	case name == "":
		c.fail("the guard's name is empty")
	case strings.ContainsAny(name, "{}"):
		c.fail("the guard's name %q has a brace, which would break the keys' hash tag", name)
	}
	for _, o := range opts {
		if o == nil {
			c.fail("an Option is nil")
			continue
		}
		o(c)
	}
	if c.clock == nil {
		c.clock = clock.New()
	}
	return c
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
	return func(c *config) {
		if d <= 0 {
			c.fail("WithTimeout was given %v; it must be positive", d)
			return
		}
		c.timeout = d
	}
}

// WithRetryInterval sets how long a guard decides locally after a round
// trip failed (DefaultRetryInterval unless told otherwise): the first call
// after d tries Redis again, and the guard returns to the shared state if
// Redis answers. d must be positive.
func WithRetryInterval(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.fail("WithRetryInterval was given %v; it must be positive", d)
			return
		}
		c.retryEvery = d
	}
}

// WithStaleness sets how old the shared state a guard acts on without a
// round trip may be (DefaultStaleness unless told otherwise). A breaker
// admits calls while the state its last round trip saw is closed and
// younger than d; a budget refuses a retry without a round trip while the
// count its last round trip saw is spent and younger than d. 0 makes every
// such decision a round trip. A negative d is an invalid configuration.
func WithStaleness(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			c.fail("WithStaleness was given %v; it must not be negative", d)
			return
		}
		c.staleness = d
	}
}

// WithTTL sets how long a guard's key outlives the last call that wrote
// it (DefaultTTL unless told otherwise); Redis then forgets it, and the
// guard starts again from a full budget or a closed breaker. A breaker's
// key also outlives its open duration and probe timeout. d must be at
// least a millisecond.
func WithTTL(d time.Duration) Option {
	return func(c *config) {
		if d < time.Millisecond {
			c.fail("WithTTL was given %v; it must be at least 1ms", d)
			return
		}
		c.ttl = d
	}
}

// WithKeyPrefix sets the first part of the guard's keys, DefaultKeyPrefix
// unless told otherwise: the keys are "prefix:{name}:tokens" for a budget
// and "prefix:{name}:breaker" for a breaker. It must not be empty nor hold
// a brace.
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
		if fn == nil {
			c.fail("WithOnFallback was given a nil function")
			return
		}
		c.onFallback = fn
	}
}

// WithOnRecover sets a function called when the guard returns from its
// local fallback to the shared state, once per return, on the goroutine of
// the call whose round trip succeeded, with no lock held. A panic in fn
// goes on to that caller, the return being made. A nil fn is an invalid
// configuration.
func WithOnRecover(fn func()) Option {
	return func(c *config) {
		if fn == nil {
			c.fail("WithOnRecover was given a nil function")
			return
		}
		c.onRecover = fn
	}
}

// WithClock sets the clock of everything a guard times locally: the
// retry interval, the staleness of what it saw, and its local fallback
// (a breaker's open duration there). The shared state is timed by the
// Redis server's clock, whatever c says. The default is clock.New(). A nil
// c is an invalid configuration.
func WithClock(c clock.Clock) Option {
	return func(cf *config) {
		if c == nil {
			cf.fail("WithClock was given a nil clock")
			return
		}
		cf.clock = c
	}
}

// WithMaxTokens is budget.WithMaxTokens for a shared token bucket: the
// capacity and starting count (default budget.DefaultMaxTokens).
func WithMaxTokens(n float64) Option {
	return func(c *config) {
		if c.only(budgetKind, "WithMaxTokens") {
			c.maxTokens = n
		}
	}
}

// WithTokenRatio is budget.WithTokenRatio for a shared token bucket: the
// tokens a success gives back (default budget.DefaultTokenRatio).
func WithTokenRatio(r float64) Option {
	return func(c *config) {
		if c.only(budgetKind, "WithTokenRatio") {
			c.tokenRatio = r
		}
	}
}

// WithConsecutiveFailures is breaker.WithConsecutiveFailures for a shared
// breaker: it trips when n calls in a row fail, across the fleet (default
// breaker.DefaultConsecutiveFailures).
func WithConsecutiveFailures(n int) Option {
	return func(c *config) {
		if c.only(breakerKind, "WithConsecutiveFailures") {
			c.threshold = n
		}
	}
}

// WithOpenDuration is breaker.WithOpenDuration for a shared breaker: how
// long it stays open, on the Redis server's clock (default
// breaker.DefaultOpenDuration). Durations finer than a microsecond are cut.
func WithOpenDuration(d time.Duration) Option {
	return func(c *config) {
		if c.only(breakerKind, "WithOpenDuration") {
			c.open = d
		}
	}
}

// WithHalfOpen is breaker.WithHalfOpen for a shared breaker: the fleet
// admits at most probes probe calls in all, and closes once successes of
// them succeeded (defaults breaker.DefaultProbes and
// breaker.DefaultProbeSuccesses).
func WithHalfOpen(probes, successes int) Option {
	return func(c *config) {
		if c.only(breakerKind, "WithHalfOpen") {
			c.probes, c.successes = probes, successes
		}
	}
}

// WithIsFailure sets which errors are failures of the dependency, for
// both kinds of guard: for a shared breaker as breaker.WithIsFailure says
// (an error fn returns false for is a success), for a shared token bucket
// as budget.WithIsFailure says (it takes no token, nor gives one back). fn
// runs in Record, once per call, with no lock held; if it panics, the
// breaker counts the call as a failure and the budget counts it neither
// way, and the panic goes on. A nil fn is an invalid configuration.
func WithIsFailure(fn func(error) bool) Option {
	return func(c *config) {
		if fn == nil {
			c.fail("WithIsFailure was given a nil classifier")
			return
		}
		c.isFailure = fn
	}
}

// WithStateChange sets a function called after each change of the shared
// state that a round trip of this guard made, with the state left and the
// state entered: an Allow (open to half-open), a Record (a trip, a failed
// or a closing probe). Changes made by the other instances of the fleet
// are not reported here (State shows them once a round trip has seen
// them), nor those of the local fallback. fn runs on the goroutine of that
// call, with no lock held; a panic in fn goes on to it, the change being
// made. A nil fn is an invalid configuration.
func WithStateChange(fn func(from, to breaker.State)) Option {
	return func(c *config) {
		if !c.only(breakerKind, "WithStateChange") {
			return
		}
		if fn == nil {
			c.fail("WithStateChange was given a nil function")
			return
		}
		c.onChange = fn
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
		if d < time.Millisecond {
			c.fail("WithProbeTimeout was given %v; it must be at least 1ms", d)
			return
		}
		c.probeTimeout = d
	}
}

// thousandths returns v in thousandths as package budget counts it: the
// digits beyond dropped, as gRPC ignores them.
func thousandths(v float64) int64 {
	return int64(math.Floor(v*1000 + 1e-6))
}

// millis returns d in whole milliseconds, at least 1.
func millis(d time.Duration) int64 {
	return max(d.Milliseconds(), 1)
}
