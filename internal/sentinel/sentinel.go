// Package sentinel makes the sentinel errors of the guards: errors that,
// besides their message, name themselves for telemetry, so that the
// telemetry of this repository reports a guard's refusals under the
// guard's own names without importing the guard.
//
// An error names itself through two methods, which any error may have,
// a user's guard's included (docs/telemetry.md, "A guard of your own"):
//
//   - ErrorType() string, the OpenTelemetry convention: the value of the
//     error.type attribute and the error_type label, such as
//     "breaker.ErrCircuitOpen".
//   - RetryCause() string: the value of the retry.cause attribute and the
//     cause label when a retry driver gives up because of the error, such
//     as "circuit_open".
package sentinel

// Error is a sentinel error: a value made once, in a package-level
// variable, and matched by identity (== or errors.Is). It wraps nothing.
// Its methods are safe for concurrent use.
type Error struct {
	msg, typ, cause string
}

// New returns a sentinel error whose Error is msg, whose ErrorType is
// typ (the package's name and the variable's, such as
// "breaker.ErrCircuitOpen") and whose RetryCause is cause (a short
// snake_case word, such as "circuit_open"). Each call returns a distinct
// error, as errors.New does.
func New(msg, typ, cause string) *Error {
	return &Error{msg: msg, typ: typ, cause: cause}
}

// Error returns the message.
func (e *Error) Error() string { return e.msg }

// ErrorType returns the name of the error, for the error.type attribute.
func (e *Error) ErrorType() string { return e.typ }

// RetryCause returns the name of the error as the cause of a give-up, for
// the retry.cause attribute.
func (e *Error) RetryCause() string { return e.cause }
