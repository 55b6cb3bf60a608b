package policy

import (
	"context"
	"runtime/debug"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
)

// run runs segment k of the Policy, for the attempt a: its steps around
// what ends it. It runs the segment outside every retry stage (when
// stages stand outside the first one), and a segment that starts with a
// Recover stage; the attempts of a retry stage run theirs in call.retry,
// the same way.
func (c *call) run(p *Policy, ctx context.Context, a backoff.Attempt, k int) (err error) {
	if k == len(p.segs) { // the zero Policy, which has no stage
		return c.fn(ctx, a)
	}
	s := &p.segs[k]
	if s.recovers {
		defer func() {
			if v := recover(); v != nil {
				err = &PanicError{Value: v, Stack: debug.Stack()}
			}
		}()
	}
	var f frame
	if len(s.steps) > 0 {
		defer func() {
			if f.pos > 0 { // a panic is going through
				s.release(&f)
			}
		}()
		ctx, err = s.enter(ctx, a, &f)
	}
	if err == nil {
		switch s.end {
		case endFn:
			err = c.fn(ctx, a)
		case endRetry:
			err = c.retry(p, ctx, k)
		default:
			err = c.run(p, ctx, a, k+1)
		}
	}
	if f.pos > 0 {
		err = c.leave(s, &f, err)
	}
	return err
}

// frame is what the run of a segment keeps of the steps it entered, to
// leave them in reverse: how many it entered, the innermost context they
// derived, the permit of each guard admitted.
type frame struct {
	pos     int
	ctx     context.Context
	permits [maxGuards]guard.Permit
}

// enter runs s's steps in order for the attempt a, from ctx: it asks each
// guard to admit the call and derives each timeout's deadline. It returns
// the innermost context, or the error of the guard that refused the call
// (see guard.Admit); f.pos counts the steps entered, which must be left.
func (s *segment) enter(ctx context.Context, a backoff.Attempt, f *frame) (context.Context, error) {
	f.ctx = ctx
	for i := range s.steps {
		st := &s.steps[i]
		switch st.kind {
		case guardStage:
			p, err := guard.Admit(ctx, st.g, guard.Call{Attempt: a.Number})
			if err != nil {
				return ctx, err
			}
			f.permits[st.slot] = p
		case timeoutStage:
			ctx = newDeadline(ctx, st.after)
			f.ctx = ctx
		}
		f.pos = i + 1
	}
	return ctx, nil
}

// leave leaves the steps of s that f entered, in reverse, after what they
// ran returned err: each guard is told the outcome (abandoned if the
// context it admitted the call with is done), each deadline ended, and
// each fallback asked to serve a failure while its context is alive. It
// returns the error that comes out of the outermost.
func (c *call) leave(s *segment, f *frame, err error) error {
	ctx := f.ctx
	for f.pos > 0 {
		f.pos--
		st := &s.steps[f.pos]
		switch st.kind {
		case guardStage:
			st.g.Record(f.permits[st.slot], guard.Outcome{Err: err, Abandoned: ctx.Err() != nil})
		case timeoutStage:
			d := ctx.(*deadline)
			ctx = d.Context
			f.ctx = ctx
			d.end()
		case fallbackStage:
			if err != nil && ctx.Err() == nil {
				err = c.fallback(st.f, ctx, settle(ctx, err))
			}
		}
	}
	return err
}

// release leaves the steps of s that f entered while a panic goes
// through them: each guard is told guard.ErrPanicked, each deadline
// ended; fallbacks are not asked. A guard whose Record panics in turn
// leaves the steps outside it to be released all the same.
func (s *segment) release(f *frame) {
	defer func() {
		if f.pos > 0 {
			s.release(f)
		}
	}()
	for f.pos > 0 {
		f.pos--
		st := &s.steps[f.pos]
		switch st.kind {
		case guardStage:
			st.g.Record(f.permits[st.slot], guard.Outcome{Err: guard.ErrPanicked})
		case timeoutStage:
			d := f.ctx.(*deadline)
			f.ctx = d.Context
			d.end()
		}
	}
}
