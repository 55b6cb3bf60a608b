package backoff

import (
	"context"
	"fmt"
	"runtime/debug"
)

// PanicError is the error a panic of the operation becomes under a
// WithRecover stage or the WithPanicRecovery option.
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

// WithRecover returns a stage that turns a panic in the stages inside it
// (the operation, and any guard or timeout between) into a *PanicError,
// which the stages around it then handle like any other error: a retry
// stage retries it unless a classifier rejects it, a breaker counts it, a
// fallback replaces it. Put it innermost, so that every other stage sees
// an error rather than a panic.
//
// It recovers what runs inside it and nothing else: the operation, its
// CheckResult, and the stages placed inside it. A panic in any other
// callback (a classifier, Notify, an Instrumenter, a BackOff, a fallback,
// a guard outside it) goes on to the caller, after the stages it passes
// through have released what they hold: a guard's admission, a timer, a
// result the driver holds.
func WithRecover() Stage { return Stage{kind: recoverStage} }

// WithPanicRecovery is the shortcut for a WithRecover stage just inside the
// retry: it turns a panic in the operation into a *PanicError, which is then
// handled like any other error: retried, unless a classifier rejects it
// (e.g. WithRetryable(func(err error) bool { ... })) and the driver stops
// with Cause ErrPermanent. It covers the operation only, as WithRecover
// says. Without it a panic propagates to the caller unchanged, after the
// driver has released what it holds.
func WithPanicRecovery() RetryOption {
	return func(o *retryOptions) { o.recoverPanics = true }
}

// recovering runs the rest of the stages, turning a panic into a
// *PanicError.
func recovering(ctx context.Context, rest []Stage, c *call) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return run(ctx, rest, c)
}
