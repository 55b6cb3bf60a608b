package breaker

import (
	"errors"
	"fmt"
	"time"

	"github.com/herdsafe/backoff"
)

// ErrCircuitOpen is what every refusal of a [Breaker] matches with
// errors.Is: the breaker is open, or half-open with all its probes taken.
// The refusal itself is an [*OpenError], which says how long until the
// breaker admits a probe; through a [backoff.Policy] it is the Cause of
// the [*backoff.Error].
var ErrCircuitOpen = errors.New("breaker: circuit open")

// OpenError is the error of a refused call. It matches [ErrCircuitOpen]
// with errors.Is; find it with errors.As to read how long the breaker
// stays open.
//
// OpenError is not a [backoff.Pushback], on purpose. Inside a Policy a
// refusal already stops the retry stage around the breaker, before any
// Pushback would be read. Outside one, when [Breaker.Execute] runs inside
// a retry loop, a Pushback would either make every retrier sleep exactly
// until the breaker half-opens, so that they all come back at the same
// instant, or cancel retries in the breaker's name; neither is the
// breaker's call to make. A retry loop that should stop on a refusal can
// say so with a classifier, such as
// backoff.WithRetryable(func(err error) bool { return !errors.Is(err, breaker.ErrCircuitOpen) }).
type OpenError struct {
	// State is the state that refused the call: Open, or HalfOpen when
	// all the probes of the half-open state are taken.
	State State
	// Duration is how long the breaker stays open from the refusal: the
	// earliest time a probe can be admitted. It is 0 in the half-open
	// state, where the probes in flight decide what comes next.
	Duration time.Duration
}

// Error says that the circuit is open, and for how long.
func (e *OpenError) Error() string {
	if e.State == HalfOpen {
		return "breaker: circuit half-open, its probes taken"
	}
	return "breaker: circuit open for " + e.Duration.String()
}

// Is reports whether target is ErrCircuitOpen.
func (e *OpenError) Is(target error) bool { return target == ErrCircuitOpen }

// RetryAfter returns Duration, the time until the breaker admits a probe.
func (e *OpenError) RetryAfter() time.Duration { return e.Duration }

// invalid returns an error that matches backoff.ErrInvalidConfiguration
// and names the setting that is wrong.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: breaker: %s", backoff.ErrInvalidConfiguration, fmt.Sprintf(format, args...))
}

// errNilContext is the error of Allow given a nil context.
var errNilContext = invalid("Allow was given a nil context")
