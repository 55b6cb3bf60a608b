package chaos

import (
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/internal/typednil"
)

// Config says which faults an [Injector] injects, and how often. Its zero
// value injects nothing.
type Config struct {
	// ErrorProbability is the probability, in [0, 1], that a call fails
	// with InjectedError instead of being made.
	ErrorProbability float64
	// InjectedError is the error an injected failure returns. It must be
	// set when ErrorProbability is above 0. Give it an error of your own,
	// so that a test can tell an injected failure from a real one with
	// errors.Is. A typed nil, such as a nil *backoff.Error, is invalid.
	InjectedError error
	// LatencyProbability is the probability, in [0, 1], that a call is
	// delayed by LatencyDuration before anything else happens.
	LatencyProbability float64
	// LatencyDuration is the injected delay. It must not be negative.
	LatencyDuration time.Duration

	// Clock measures the injected delays. Nil means clock.New(), the time
	// package; give a *clock.Mock to drive the delays in a test. A typed
	// nil, such as a nil *clock.Mock, is invalid.
	Clock clock.Clock
	// Rand returns the draws, uniform in [0, 1), that decide each
	// injection: a fault is injected when the draw is below its
	// probability. A call takes no draw for a probability of 0 or 1, and
	// otherwise one for the delay, then one for the error. Nil means
	// math/rand/v2's Float64. It is called from
	// every goroutine that calls through the Injector, so it must be safe
	// for concurrent use, as [Seeded] is.
	Rand func() float64
}

// Validate reports the first setting of c that cannot be used, as an error
// that matches [backoff.ErrInvalidConfiguration] with errors.Is and names
// the field: a probability outside [0, 1] or NaN, a negative
// LatencyDuration, an ErrorProbability above 0 with no InjectedError, or
// an InjectedError or a Clock that is a typed nil (a nil pointer in the
// interface, such as a nil *backoff.Error, whose methods would panic),
// whatever the probabilities.
func (c Config) Validate() error {
	switch {
	case c.InjectedError != nil && typednil.Is(c.InjectedError):
		return settings.Invalid("Config.InjectedError is a nil %T", c.InjectedError)
	case c.Clock != nil && typednil.Is(c.Clock):
		return settings.Invalid("Config.Clock is a nil %T", c.Clock)
	case !inUnitInterval(c.ErrorProbability):
		return settings.Invalid("Config.ErrorProbability is %v, not in [0, 1]", c.ErrorProbability)
	case !inUnitInterval(c.LatencyProbability):
		return settings.Invalid("Config.LatencyProbability is %v, not in [0, 1]", c.LatencyProbability)
	case c.LatencyDuration < 0:
		return settings.Invalid("Config.LatencyDuration is negative (%v)", c.LatencyDuration)
	case c.ErrorProbability > 0 && c.InjectedError == nil:
		return settings.Invalid("Config.ErrorProbability is %v but InjectedError is nil", c.ErrorProbability)
	}
	return nil
}

// inUnitInterval reports whether p is in [0, 1]; NaN is not.
func inUnitInterval(p float64) bool { return p >= 0 && p <= 1 }
