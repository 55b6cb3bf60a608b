package telemetrytest

import "fmt"

// SelfNamed is an error that names its own type, as the OpenTelemetry
// convention lets an error do: its ErrorType is the string.
type SelfNamed string

func (n SelfNamed) Error() string { return "self-named " + string(n) }

// ErrorType returns n.
func (n SelfNamed) ErrorType() string { return string(n) }

// Uncomparable is an error type whose values cannot be compared with ==.
type Uncomparable []error

func (e Uncomparable) Error() string { return fmt.Sprint([]error(e)) }
