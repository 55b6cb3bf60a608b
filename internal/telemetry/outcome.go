package telemetry

import (
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
)

// Outcome is how the attempt that a call of AfterAttempt reports ended,
// as the metrics of attempts count it: each attempt has one outcome, in
// the first AfterAttempt of the attempt.
type Outcome uint8

const (
	// NoAttempt is the outcome of a call that ends no attempt: the
	// second AfterAttempt of an attempt (State.Reported), which only says
	// that the driver gives up after the wait that followed it. (A State
	// without an attempt number, Attempt 0, which the driver does not
	// report, ends none either.)
	NoAttempt Outcome = iota
	// Success is an attempt that returned no error.
	Success
	// Failure is an attempt that returned an error.
	Failure
	// Refused is an attempt that was refused before it reached the
	// dependency (guard.IsRefusal): by a guard in the retry stage, or by
	// Do, which does not start an attempt once its context is done.
	Refused
)

// OutcomeOf is the outcome of the attempt that AfterAttempt reports with
// s. Because it reads State.Reported, an attempt whose give-up is reported
// after its wait is counted once, with no record of the attempt kept
// between the two calls.
func OutcomeOf(s backoff.State) Outcome {
	switch {
	case s.Number < 1 || s.Reported:
		return NoAttempt
	case s.Err == nil:
		return Success
	case guard.IsRefusal(s.Err):
		return Refused
	}
	return Failure
}

// String is the outcome's value of the retry.outcome attribute and the
// outcome label: "success", "failure" or "refused"; "" for NoAttempt.
func (o Outcome) String() string {
	switch o {
	case Success:
		return "success"
	case Failure:
		return "failure"
	case Refused:
		return "refused"
	}
	return ""
}
