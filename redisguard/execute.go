package redisguard

import (
	"context"

	"github.com/herdsafe/backoff"
)

// execute runs fn under g: Allow, fn, Record, even if fn panics (the
// panic then goes on, recorded with errPanicked).
func execute(ctx context.Context, g backoff.Guard, c backoff.Call, fn func(context.Context) error) error {
	switch {
	case ctx == nil:
		return errExecuteCtx
	case fn == nil:
		return errNilFunc
	}
	p, err := g.Allow(ctx, c)
	if err != nil {
		return err
	}
	recorded := false
	defer func() {
		if !recorded {
			g.Record(p, backoff.Outcome{Err: errPanicked})
		}
	}()
	err = fn(ctx)
	recorded = true
	g.Record(p, backoff.Outcome{Err: err, Abandoned: ctx.Err() != nil})
	return err
}

// Execute runs fn under the Budget, as budget.Budget.Execute does: it asks
// Allow, and if admitted calls fn and tells Record how it ended, even if
// fn panics (the panic then goes on). The attempt number is the one
// backoff.AttemptFrom finds in ctx, else 1. A refusal returns Allow's error
// without calling fn; a call whose ctx is done when fn returns is recorded
// as abandoned. A nil ctx or fn is reported as an error matching
// backoff.ErrInvalidConfiguration.
func (b *Budget) Execute(ctx context.Context, fn func(context.Context) error) error {
	c := backoff.Call{Attempt: 1}
	if ctx != nil {
		if s, ok := backoff.AttemptFrom(ctx); ok {
			c.Attempt = s.Attempt
		}
	}
	return execute(ctx, b, c, fn)
}

// Execute runs fn through the Breaker, as breaker.Breaker.Execute does: it
// returns Allow's refusal without calling fn, or ctx's cause if ctx is
// done already, or calls fn and records how it ended, even if fn panics
// (recorded as a failure; the panic then goes on). A call whose ctx is
// done when fn returns is abandoned, and counts as neither success nor
// failure. A nil ctx or fn is reported as an error matching
// backoff.ErrInvalidConfiguration.
func (b *Breaker) Execute(ctx context.Context, fn func(context.Context) error) error {
	if ctx != nil && fn != nil && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return execute(ctx, b, backoff.Call{Attempt: 1}, fn)
}
