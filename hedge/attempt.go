package hedge

import (
	"context"
	"errors"
	"runtime/debug"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
)

// attempt runs the attempt of index n on its own goroutine, with its own
// context, and reports it. p is the budget's permit for it.
func (c *call[T]) attempt(ctx context.Context, n int, p guard.Permit) {
	r := result[T]{n: n}
	returned := false
	defer func() {
		if !returned {
			r.panic = panicError(recover())
		}
		c.finish(ctx, r, p)
	}()
	if c.inner == nil {
		r.v, r.err = c.fn(ctx)
	} else {
		r.v, r.err = policy.Do(ctx, c.inner, c.fn)
	}
	returned = true
}

// finish hands the attempt's result over: a failure or a panic to
// Do's goroutine, a success to it if it wins the call, else to the
// discard function. Then the budget learns the outcome.
func (c *call[T]) finish(ctx context.Context, r result[T], p guard.Permit) {
	if g := c.h.budget; g != nil && r.n > 0 {
		err := r.err
		if r.panic != nil {
			err = r.panic
		}
		defer g.Record(p, guard.Outcome{Err: err, Abandoned: ctx.Err() != nil})
	}
	if r.err != nil || r.panic != nil || c.state.CompareAndSwap(open, won) {
		c.report(r)
		return
	}
	if c.discard != nil {
		c.discard(r.v)
	}
}

// errGoexit is the panic value of an attempt whose function called
// runtime.Goexit, as t.FailNow does.
var errGoexit = errors.New("hedge: the attempt's function called runtime.Goexit")

// panicError is the report of an attempt that panicked with v, or, for a
// nil v, called runtime.Goexit.
func panicError(v any) *policy.PanicError {
	if v == nil {
		v = errGoexit
	}
	return &policy.PanicError{Value: v, Stack: debug.Stack()}
}
