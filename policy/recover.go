package policy

import (
	"fmt"
)

// PanicError is the error a panic of the stages inside a Recover stage
// becomes.
type PanicError struct {
	// Value is what was passed to panic.
	Value any
	// Stack is the goroutine's stack trace where the panic was recovered.
	Stack []byte
}

// Error describes the panic value; the stack is in the Stack field.
func (e *PanicError) Error() string { return fmt.Sprintf("policy: the call panicked: %v", e.Value) }

// Unwrap returns the panic value if it is an error, so errors.Is and
// errors.As reach it.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// Recover returns a stage that turns a panic in the stages inside it (the
// function, and any guard or timeout between) into a *PanicError, which
// the stages around it then handle like any other error: a retry stage
// retries it unless a classifier rejects it, a breaker counts it, a
// fallback replaces it. Put it innermost, so that every other stage sees
// an error rather than a panic.
//
// It recovers what runs inside it and nothing else. A panic in any other
// callback (a classifier, Notify, an Instrumenter, a BackOff, a fallback,
// a guard outside it) goes on to the caller, after the stages it passes
// through have released what they hold: a guard's admission, a timer.
func Recover() Stage { return Stage{kind: recoverStage} }
