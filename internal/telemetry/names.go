package telemetry

import (
	"strings"
	"unicode/utf8"
)

// Unnamed is the name reported for an operation without one: the
// Instrumenter of each module itself, rather than one its Named method
// returns.
const Unnamed = "unnamed"

// Namer names the error types and the causes an Instrumenter reports. Its
// zero value names them by the package's rules alone.
type Namer struct {
	// ErrorType, if not nil, is the user's naming of an error's type
	// (WithErrorType), tried first: a result of "" falls back to the
	// rule. It receives State.Err as the operation returned it, or the
	// cause of a give-up the rules do not know.
	ErrorType func(error) string
}

// Type names the type of err: by n.ErrorType, else by the rule of
// ErrorType.
func (n Namer) Type(err error) string {
	if n.ErrorType != nil {
		if s := n.ErrorType(err); s != "" {
			return LabelValue(s)
		}
	}
	return ErrorType(err)
}

// LabelValue returns s as a label value: s itself if it is valid UTF-8, which
// Prometheus and OpenTelemetry require of every label and attribute value,
// else s with each run of invalid bytes replaced by U+FFFD, so that a
// value that comes from a user's function or an error's text never makes
// a metric refuse, or panic on, what a call reports.
func LabelValue(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// Cause names why the driver gave up: one of the cause constants (such as
// "exhausted") when cause matches a well-known cause with errors.Is, or
// the cause a guard's error names (RetryCause, such as "circuit_open" for
// a breaker's refusal), in the order of wellKnownCause; "refused" for the
// refusal of a guard whose error names no cause (an error matching
// backoff.ErrRefused); else the cause's type as
// Type names it (a context's custom cause); "unknown" for a nil cause.
func (n Namer) Cause(cause error) string {
	if name, ok := wellKnownCause(cause); ok {
		return name
	}
	if cause == nil {
		return "unknown"
	}
	return n.Type(cause)
}
