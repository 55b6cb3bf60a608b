package httpretry

import (
	"context"
	"errors"

	"github.com/herdsafe/backoff"
)

// marker is the first Instrumenter of every retry stage made by Retry, and
// of a Transport's own when it is observed (WithInstrumenter, WithLogger).
// It gives each attempt its attemptContext, which AttemptStatus reads, and
// tells the RoundTrip it serves, found through the context (see callKey),
// which attempt of how many the stage is making: what the Transport needs
// to judge a response as the last one (see call.last), and to see that its
// Policy has the one retry stage it needs (see call.check).
type marker struct{}

func (marker) BeforeAttempt(ctx context.Context, s backoff.State) context.Context {
	a := &attemptContext{Context: ctx}
	if c, _ := ctx.Value(callKey{}).(*call); c != nil {
		c.began(a, s)
	}
	return a
}

func (marker) AfterAttempt(context.Context, backoff.State) {}

// callKey is the context key of the *call a RoundTrip runs through a
// Policy given to WithPolicy: the call is the context it passes to the
// Policy.
type callKey struct{}

// Value returns the call for callKey, and what its parent holds for any
// other key.
func (c *call) Value(key any) any {
	if _, ok := key.(callKey); ok {
		return c
	}
	return c.Context.Value(key)
}

// began records that a retry stage made by Retry is starting attempt s of
// the call, in the context a. It notes a Policy that runs the call through
// two such stages, one inside the other, or runs the stage again (a retry
// stage around it), for check to report.
func (c *call) began(a *attemptContext, s backoff.State) {
	if outer, _ := a.Context.Value(statusKey{}).(*attemptContext); outer != nil && outer.call == c {
		c.misuse("it has a retry stage made by httpretry.Retry inside another one")
	}
	if s.Number == 1 {
		if c.stages > 0 {
			c.misuse("a retry stage around httpretry.Retry runs the request again")
		}
		c.stages++
	}
	a.call = c
	c.number, c.tries, c.marked = s.Number, s.MaxTries, true
}

// misuse records the first way the Policy misuses the Transport.
func (c *call) misuse(why string) {
	if c.misused == "" {
		c.misused = why
	}
}

// check reports, before an attempt of a Policy given to WithPolicy sends
// anything, whether the Policy is one the Transport can run: a retry stage
// made by Retry started this attempt (marked it), and nothing ran the
// request again without it. Its error matches both
// ErrInvalidConfiguration and backoff.ErrRefused, so that every stage
// stops at once and a guard does not count it as the dependency's
// failure.
func (c *call) check() error {
	switch {
	case c.misused != "":
	case !c.marked && c.attempts == 1:
		c.misuse("it has no retry stage made by httpretry.Retry")
	case !c.marked:
		c.misuse("a retry stage inside httpretry.Retry runs the request again")
	}
	c.marked = false
	if c.misused == "" {
		return nil
	}
	return &misuseError{err: c.invalidPolicy()}
}

// invalidPolicy is the configuration error of the Policy's misuse.
func (c *call) invalidPolicy() error {
	return settings.Invalid("WithPolicy was given a Policy that cannot run the Transport's requests: %s; it must hold exactly one retry stage, made by httpretry.Retry", c.misused)
}

// misuseError returns the error RoundTrip reports for a Policy that
// misuses the Transport, in place of err, what the Policy returned: its
// Cause is the misuse, whatever stage reported it, and its LastErr the
// last error of an attempt that ran.
func (c *call) misuseError(err error) error {
	e := &backoff.Error{Cause: c.invalidPolicy()}
	var pe *backoff.Error
	if errors.As(err, &pe) {
		e.LastErr, e.Attempts, e.Elapsed = pe.LastErr, pe.Attempts, pe.Elapsed
	}
	return e
}

// misuseError is a Policy the Transport cannot run, reported as a refusal
// of the attempt that found it out: the attempt did not reach the server.
type misuseError struct{ err error }

func (e *misuseError) Error() string { return e.err.Error() }

func (e *misuseError) Unwrap() error { return e.err }

// Is reports that the error matches backoff.ErrRefused.
func (e *misuseError) Is(target error) bool { return target == backoff.ErrRefused }
