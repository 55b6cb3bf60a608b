package queue

import (
	"context"
	"errors"
)

// errZero is the refusal of a zero Queue, which Init did not make ready.
var errZero = errors.New("queue: a zero Queue admits nobody")

// contextError is the error of a caller whose context ended before it was
// admitted: it matches both ctx.Err() and context.Cause(ctx), and not the
// guard's sentinel, since the caller gave up and the guard did not refuse
// it.
type contextError struct {
	name       string
	cause, err error
}

func (e *contextError) Error() string { return e.name + ": not admitted: " + e.cause.Error() }

func (e *contextError) Unwrap() []error { return []error{e.cause, e.err} }

// Canceled returns the error a guard, of the package named name, gives a
// caller whose context ctx is done: "bulkhead: not admitted: context
// canceled", matching ctx.Err() and context.Cause(ctx).
func Canceled(name string, ctx context.Context) error {
	return &contextError{name: name, cause: context.Cause(ctx), err: ctx.Err()}
}

// GaveUp reports whether err, an error of [Queue.Acquire] or [Canceled],
// is that of a caller whose context ended, rather than a refusal.
func GaveUp(err error) bool {
	_, ok := err.(*contextError)
	return ok
}
