package backoff

import "fmt"

// PanicError is the error an operation's panic becomes under
// WithPanicRecovery.
type PanicError struct {
	// Value is what the operation passed to panic.
	Value any
	// Stack is the goroutine's stack trace where the panic was recovered.
	Stack []byte
}

// Error describes the panic value; the stack is in the Stack field.
func (e *PanicError) Error() string { return fmt.Sprintf("backoff: operation panicked: %v", e.Value) }

// Unwrap returns the panic value if it is an error, so errors.Is and
// errors.As reach it.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// WithPanicRecovery turns a panic in the operation into a *PanicError,
// which is then handled like any other error: retried, unless a classifier
// rejects it (e.g. WithRetryable(func(err error) bool { ... })) and the
// driver stops with Cause ErrPermanent. Without this option a panic
// propagates to the caller unchanged, after the driver has released what it
// holds (the attempt's timer and context).
func WithPanicRecovery() RetryOption {
	return func(o *retryOptions) { o.recoverPanics = true }
}
