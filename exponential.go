package backoff

import (
	"fmt"
	"math"
	"time"
)

// ExponentialBackOff is a backoff implementation that increases the backoff
// period for each retry attempt using a randomization function that grows
// exponentially.
//
// NextBackOff() is calculated using the following formula:
//
//	randomized interval =
//	    RetryInterval * (random value in range [1 - RandomizationFactor, 1 + RandomizationFactor])
//
// In other words NextBackOff() will range between the randomization factor
// percentage below and above the retry interval. RetryInterval starts at
// InitialInterval and is multiplied by Multiplier after every call, up to
// MaxInterval.
//
// For example, with InitialInterval 2s, Multiplier 2 and
// RandomizationFactor 0.5, RetryInterval is 2s, 4s, 8s, ..., so the first
// wait lies between 1s and 3s, the second between 2s and 6s, the third
// between 4s and 12s.
//
// Note: MaxInterval caps the RetryInterval and not the randomized interval,
// so with RandomizationJitter a wait can reach MaxInterval ×
// (1 + RandomizationFactor). The other [Jitter] kinds never wait longer than
// MaxInterval.
//
// Example: Given the following default arguments, for 9 tries the sequence
// will be (the figures rounded to a few digits):
//
//	Request #  RetryInterval (seconds)  Randomized Interval (seconds)
//
//	 1          0.5                     [0.25,   0.75]
//	 2          0.75                    [0.375,  1.125]
//	 3          1.125                   [0.562,  1.687]
//	 4          1.687                   [0.8435, 2.53]
//	 5          2.53                    [1.265,  3.795]
//	 6          3.795                   [1.897,  5.692]
//	 7          5.692                   [2.846,  8.538]
//	 8          8.538                   [4.269, 12.807]
//	 9         12.807                   [6.403, 19.210]
//
// A struct literal works as well as NewExponentialBackOff, and the fields
// may be changed after either, before the first NextBackOff or a Reset: the
// sequence starts from the fields as they are then. The rule for zero
// fields, stated once: InitialInterval 0 means no wait, every time, as
// WithInitialInterval(0) does; a zero Multiplier or MaxInterval means its
// Default value; a zero RandomizationFactor means no randomization. Only the
// zero value, every one of those four fields zero, means all four defaults,
// so ExponentialBackOff{} waits as NewExponentialBackOff() does and is never
// a hot loop. An InitialInterval above MaxInterval is capped to it.
//
// The arithmetic saturates: however many times NextBackOff is called, the
// interval never overflows and the result is never negative. An
// ExponentialBackOff whose fields make no sense (see Validate) returns Stop
// rather than guess, and the driver, a Loop and a Ticker report it before
// they start.
//
// Note: Implementation is not thread-safe. The driver, a Loop and a Ticker
// work on a clone of their own (see BackOff), so one value may configure any
// number of them, as long as nothing changes its fields meanwhile.
type ExponentialBackOff struct {
	InitialInterval     time.Duration
	RandomizationFactor float64
	Multiplier          float64
	MaxInterval         time.Duration
	// Jitter chooses how each wait is randomized; the zero value is
	// RandomizationJitter, the formula above.
	Jitter Jitter
	// Random is the random source: it returns values in [0, 1], and values
	// outside are clamped. nil means math/rand/v2, which is safe for
	// concurrent use and takes no global lock. With a source that returns
	// 1, FullJitter waits are exactly the nominal interval, which lets a
	// test assert an exact sequence. Random is called from whichever
	// goroutine calls NextBackOff, and clones share it, so a source of your
	// own must be safe for concurrent use if the ExponentialBackOff is
	// shared.
	Random func() float64

	currentInterval time.Duration
	previous        time.Duration // the last wait, for DecorrelatedJitter
	started         bool          // the sequence has started: currentInterval is set
	nilOption       bool          // NewExponentialBackOff was given a nil option
}

// ExponentialBackOffOption changes a setting of an ExponentialBackOff
// created by NewExponentialBackOff. Settings that are not given keep their
// default.
type ExponentialBackOffOption func(*ExponentialBackOff)

// WithInitialInterval sets the interval of the first retry. 0 means no
// wait, for the first retry and every later one.
func WithInitialInterval(d time.Duration) ExponentialBackOffOption {
	return func(b *ExponentialBackOff) { b.InitialInterval = d }
}

// WithMaxInterval caps the interval between retries.
func WithMaxInterval(d time.Duration) ExponentialBackOffOption {
	return func(b *ExponentialBackOff) { b.MaxInterval = d }
}

// WithMultiplier sets the factor the interval grows by on every retry.
func WithMultiplier(f float64) ExponentialBackOffOption {
	return func(b *ExponentialBackOff) { b.Multiplier = f }
}

// WithRandomizationFactor sets how far an interval is randomized around its
// nominal value, e.g. 0.5 for ±50%. It applies to RandomizationJitter.
func WithRandomizationFactor(f float64) ExponentialBackOffOption {
	return func(b *ExponentialBackOff) { b.RandomizationFactor = f }
}

// NewExponentialBackOff creates an instance of ExponentialBackOff using
// default values, changed by opts. A nil option is reported by Validate,
// and so where the result is used.
func NewExponentialBackOff(opts ...ExponentialBackOffOption) *ExponentialBackOff {
	b := &ExponentialBackOff{
		InitialInterval:     DefaultInitialInterval,
		RandomizationFactor: DefaultRandomizationFactor,
		Multiplier:          DefaultMultiplier,
		MaxInterval:         DefaultMaxInterval,
	}
	for _, opt := range opts {
		if opt == nil {
			b.nilOption = true
			continue
		}
		opt(b)
	}
	return b
}

// Validate reports the first setting that makes no sense, as an error
// matching ErrInvalidConfiguration that names the field: a nil receiver, a
// negative interval, a Multiplier that is not finite or is below 1 (0 means
// the default), a RandomizationFactor outside [0, 1], an unknown Jitter, or
// a nil option given to NewExponentialBackOff. The driver, the Loop and the
// Ticker call it before they start.
func (b *ExponentialBackOff) Validate() error {
	if b != nil && b.valid() {
		return nil // the common case, in a small frame: see invalidity
	}
	return b.invalidity()
}

// invalidity is Validate's error, out of line: its formatting would grow
// the stack of every caller, which a goroutine parked in a wait keeps.
//
//go:noinline
func (b *ExponentialBackOff) invalidity() error {
	var msg string
	switch {
	case b == nil:
		msg = "the BackOff is a nil *ExponentialBackOff"
	case b.nilOption:
		msg = "NewExponentialBackOff was given a nil option"
	case b.InitialInterval < 0:
		msg = fmt.Sprintf("ExponentialBackOff.InitialInterval is negative (%v)", b.InitialInterval)
	case b.MaxInterval < 0:
		msg = fmt.Sprintf("ExponentialBackOff.MaxInterval is negative (%v)", b.MaxInterval)
	case math.IsNaN(b.Multiplier) || math.IsInf(b.Multiplier, 0) || b.Multiplier < 1 && b.Multiplier != 0:
		msg = fmt.Sprintf("ExponentialBackOff.Multiplier is %v; it must be a finite number of at least 1, or 0 for the default", b.Multiplier)
	case math.IsNaN(b.RandomizationFactor) || b.RandomizationFactor < 0 || b.RandomizationFactor > 1:
		msg = fmt.Sprintf("ExponentialBackOff.RandomizationFactor is %v; it must lie in [0, 1]", b.RandomizationFactor)
	case !b.Jitter.valid():
		msg = fmt.Sprintf("ExponentialBackOff.Jitter is %v, which is not a known kind", b.Jitter)
	default:
		return nil
	}
	return invalid("%s", msg)
}

// valid is Validate() == nil for a non-nil b, cheap enough for every
// NextBackOff. NaN fails every comparison, and +Inf fails the bound on
// Multiplier.
func (b *ExponentialBackOff) valid() bool {
	return b.InitialInterval >= 0 && b.MaxInterval >= 0 &&
		(b.Multiplier >= 1 && b.Multiplier <= math.MaxFloat64 || b.Multiplier == 0) &&
		b.RandomizationFactor >= 0 && b.RandomizationFactor <= 1 &&
		b.Jitter.valid() && !b.nilOption
}

// Clone returns a copy of b, with its sequence where b's is. The driver, a
// Loop and a Ticker call it, so that an ExponentialBackOff can be shared;
// see BackOff.
func (b *ExponentialBackOff) Clone() BackOff {
	c := *b
	return &c
}

// zero reports whether b is the zero value, which means the defaults.
func (b *ExponentialBackOff) zero() bool {
	return b.InitialInterval == 0 && b.RandomizationFactor == 0 && b.Multiplier == 0 && b.MaxInterval == 0
}

// initial, maxInterval, multiplier and factor are the settings in use:
// the fields, with the rule for zero fields applied.
func (b *ExponentialBackOff) initial() time.Duration {
	if b.zero() {
		return DefaultInitialInterval
	}
	return min(b.InitialInterval, b.maxInterval())
}

func (b *ExponentialBackOff) maxInterval() time.Duration {
	if b.MaxInterval == 0 {
		return DefaultMaxInterval
	}
	return b.MaxInterval
}

func (b *ExponentialBackOff) multiplier() float64 {
	if b.Multiplier == 0 {
		return DefaultMultiplier
	}
	return b.Multiplier
}

func (b *ExponentialBackOff) factor() float64 {
	if b.zero() {
		return DefaultRandomizationFactor
	}
	return b.RandomizationFactor
}

// Reset starts the sequence over: the next NextBackOff returns a wait drawn
// from the initial interval, as the fields are then.
func (b *ExponentialBackOff) Reset() {
	b.started = false
}

// NextBackOff calculates the next backoff interval using the formula:
//
//	Randomized interval = RetryInterval * (1 ± RandomizationFactor)
//
// or the formula of its Jitter. It returns Stop if Validate fails.
func (b *ExponentialBackOff) NextBackOff() time.Duration {
	if !b.valid() {
		return Stop
	}
	if !b.started {
		b.currentInterval, b.started = b.initial(), true
		b.previous = b.currentInterval
	}
	var u float64
	if b.Random == nil {
		u = defaultRandom()
	} else {
		u = unitInterval(b.Random())
	}
	d := b.currentInterval
	b.currentInterval = grow(d, b.multiplier(), b.maxInterval())
	if b.Jitter == RandomizationJitter {
		f := b.factor()
		return scale(d, 1-f+2*f*u)
	}
	return b.jitter(d, u)
}

// jitter randomizes the nominal interval d with the draw u, for the jitter
// kinds other than RandomizationJitter.
func (b *ExponentialBackOff) jitter(d time.Duration, u float64) time.Duration {
	switch b.Jitter {
	case FullJitter:
		return scale(d, u)
	case EqualJitter:
		return d/2 + scale(d-d/2, u)
	}
	// DecorrelatedJitter
	lo := b.initial()
	hi := max(saturatingTriple(b.previous), lo)
	span := hi - lo
	wait := min(lo+min(scale(span, u), span), b.maxInterval())
	b.previous = wait
	return wait
}

// grow multiplies d by m, saturating at max.
func grow(d time.Duration, m float64, max time.Duration) time.Duration {
	if d >= max {
		return max
	}
	next := float64(d) * m
	if next >= float64(max) {
		return max
	}
	return time.Duration(next)
}

// scale returns d × x for x ≥ 0, saturating at the largest Duration.
func scale(d time.Duration, x float64) time.Duration {
	if x == 1 {
		return d
	}
	v := float64(d) * x
	switch {
	case !(v > 0):
		return 0
	case v >= math.MaxInt64: // float64(math.MaxInt64) is 2^63
		return math.MaxInt64
	}
	return time.Duration(v)
}

// saturatingTriple returns 3d, or the largest Duration if that overflows.
func saturatingTriple(d time.Duration) time.Duration {
	if d > math.MaxInt64/3 {
		return math.MaxInt64
	}
	return 3 * d
}
