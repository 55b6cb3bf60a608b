package breaker

import (
	"time"

	"github.com/herdsafe/backoff/internal/sentinel"
	"github.com/herdsafe/backoff/internal/setting"
)

// ErrCircuitOpen is what every refusal of a [Breaker] matches with
// errors.Is: the breaker is open, or half-open with all its probes taken.
// The refusal itself is an [*OpenError], which says how long until the
// breaker admits a probe. Through [Breaker.Run], guard.Run or a policy it
// comes back wrapped in an error that matches [backoff.ErrRefused] (in a
// policy, the Cause of the [*backoff.Error]); errors.Is and errors.As see
// through the wrapper.
//
// It names itself for telemetry: error.type "breaker.ErrCircuitOpen",
// retry.cause "circuit_open".
var ErrCircuitOpen error = sentinel.New("breaker: circuit open", "breaker.ErrCircuitOpen", causeOpen)

// causeOpen is the retry cause of a refusal.
const causeOpen = "circuit_open"

// OpenError is the error of a refused call. It matches [ErrCircuitOpen]
// with errors.Is; find it with errors.As to read how long the breaker
// stays open.
//
// OpenError names no wait for a retry driver, on purpose: it is not a
// [*backoff.RetryAfterError], and its RetryAfter method is for the caller
// to read, not for the driver. A driver that slept exactly until the
// breaker half-opens would bring all its retriers back at the same
// instant; and a driver around [Breaker.Run] needs no wait at all, since
// the refusal matches [backoff.ErrRefused], which stops it at once, with
// the refusal as its Cause.
type OpenError struct {
	// State is the state that refused the call: Open, HalfOpen when all
	// the probes of the half-open state are taken, or ForcedOpen.
	State State
	// Duration is how long the breaker stays open from the refusal: the
	// earliest time a probe can be admitted. It is 0 in the half-open
	// state, where the probes in flight decide what comes next, and in
	// the forced-open state, which lasts until ForceClosed or Reset.
	Duration time.Duration
}

// Error says that the circuit is open, and for how long.
func (e *OpenError) Error() string {
	switch e.State {
	case HalfOpen:
		return "breaker: circuit half-open, its probes taken"
	case ForcedOpen:
		return "breaker: circuit forced open"
	}
	return "breaker: circuit open for " + e.Duration.String()
}

// Is reports whether target is ErrCircuitOpen.
func (e *OpenError) Is(target error) bool { return target == ErrCircuitOpen }

// RetryCause returns "circuit_open", the retry cause of [ErrCircuitOpen],
// which the refusal matches through its Is method rather than by wrapping
// it: the name a retry that gave up on this refusal is reported under.
func (e *OpenError) RetryCause() string { return causeOpen }

// RetryAfter returns Duration, the time until the breaker admits a probe.
func (e *OpenError) RetryAfter() time.Duration { return e.Duration }

// settings makes the errors of the settings a Breaker cannot use.
const settings = setting.Package("breaker")

var (
	errNilContext = settings.NilContext()              // of Allow given a nil context
	errZero       = settings.NotMade("Breaker", "New") // of a Breaker New did not make
)
