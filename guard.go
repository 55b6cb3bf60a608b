package backoff

import (
	"context"
	"errors"

	"github.com/herdsafe/backoff/internal/typednil"
)

// Guard admits or refuses the calls that pass through it, and learns how
// each call it admitted ended. A circuit breaker, a bulkhead, a retry
// budget and an adaptive throttle are guards; so is any type of your own
// with these two methods. Put one in a Policy with WithGuard, or call the
// pair yourself around work of your own.
//
// A Guard must be safe for concurrent use: a Policy is shared, and its
// guards are called from every goroutine that calls through it.
type Guard interface {
	// Allow is asked before the call. A nil error admits it: the caller
	// then makes the call and calls Record exactly once with the Permit,
	// whatever happens, a panic included. A non-nil error refuses it: the
	// call is not made, Record is not called, and the error says why
	// (ErrCircuitOpen, ErrBulkheadFull...). An error marked with Failure
	// is not a refusal but the call's own failure, as if the function had
	// returned it: what a chaos guard injects.
	//
	// Allow may block, as a bulkhead's queue does; it must then return
	// once ctx is done.
	Allow(ctx context.Context, c Call) (Permit, error)
	// Record reports how a call that Allow admitted ended.
	Record(p Permit, o Outcome)
}

// Call describes a call a Guard is asked to admit.
type Call struct {
	// Attempt is the number of the attempt, from 1, that the innermost
	// retry stage around the guard is making. It is 1 when no retry stage
	// is around the guard: a guard that limits retries, such as a retry
	// budget, belongs inside the retry stage.
	Attempt int
}

// Permit is what Allow hands back for Record: a token of the guard's own,
// such as a breaker's generation, so that a record can be matched to its
// admission. Its zero value serves a guard that needs none.
type Permit struct {
	Token uint64
}

// Outcome is how a call that a Guard admitted ended.
type Outcome struct {
	// Err is the error the call returned; nil on success. It is a
	// guard's refusal when a guard inside this one refused the call (see
	// IsRefusal), so the dependency was not called at all.
	Err error
	// Abandoned is true when the context the call was admitted with was
	// done by the time the call returned: the caller stopped waiting (it
	// cancelled, or its own deadline passed), so Err says nothing certain
	// about the dependency. A guard that judges the dependency, such as a
	// breaker, should count the call neither as a success nor as a
	// failure. The deadline of a timeout stage inside the guard is another
	// matter: the dependency did not answer in time, and the call is not
	// abandoned.
	Abandoned bool
}

// ErrPanicked is the Outcome.Err of a call that panicked through a guard
// stage: Record is called with it before the panic goes on, so that a
// guard's classifier can tell it from the call's own errors.
var ErrPanicked = errors.New("backoff: the call panicked")

// WithGuard returns a stage that asks g to admit each call that reaches it
// and tells g how the call ended. A refusal ends the call at once with the
// guard's error: a retry stage around the guard stops (its Cause is the
// guard's error and its LastErr the last error of an attempt that ran), and
// a fallback around it is called. A nil g, typed or not, is reported as
// ErrInvalidConfiguration, and so is a g with a Validate method that
// reports an error: the Policy then fails every call before running
// anything.
//
// The stage calls Allow and Record on the goroutine of the call. If the
// call panics, Record is called, with an error, before the panic goes on,
// so a guard holds nothing for a call that is gone; a panic in Allow or
// Record itself goes on unchanged.
func WithGuard(g Guard) Stage {
	if g == nil || typednil.Is(g) {
		return Stage{err: invalidf("WithGuard was given a nil Guard")}
	}
	if v, ok := g.(validator); ok {
		if err := v.Validate(); err != nil {
			return Stage{err: err}
		}
	}
	return Stage{kind: guardStage, v: g}
}

// guarded runs the rest of the stages under the guard g.
func guarded(ctx context.Context, g Guard, rest []Stage, c *call) (err error) {
	p, err := g.Allow(ctx, Call{Attempt: c.attempt})
	if err != nil {
		if f, ok := err.(*failure); ok {
			return f.err
		}
		return &refusal{err: err}
	}
	recorded := false
	defer func() {
		if !recorded {
			g.Record(p, Outcome{Err: ErrPanicked})
		}
	}()
	err = run(ctx, rest, c)
	recorded = true
	g.Record(p, Outcome{Err: err, Abandoned: ctx.Err() != nil})
	return err
}

// IsRefusal reports whether err says that a guard refused a call before
// anything reached the dependency: a guard's refusal as an outer Guard
// sees it in Outcome.Err, or an *Error whose Cause is a refusal and which
// has no LastErr. It lets a guard tell a call its dependency never saw
// from one that failed.
func IsRefusal(err error) bool {
	if findMarks(err).refused != nil {
		return true
	}
	e := findError(err)
	return e != nil && e.refused && e.LastErr == nil
}

// findError returns the first *Error in err's chain, as errors.As would
// find it but without an allocation: IsRefusal runs on a guard's failure
// path for every failed call.
func findError(err error) *Error {
	for err != nil {
		if e, ok := err.(*Error); ok {
			return e
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range x.Unwrap() {
				if e := findError(inner); e != nil {
					return e
				}
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}

// Failure marks err, returned by a Guard's Allow, as the call's own
// failure rather than a refusal: the call is not made, and the stages
// around the guard handle err as if the function had returned it (a retry
// stage retries it, a breaker outside counts it, a fallback sees it as the
// last error). A chaos guard injects its errors so. Failure(nil) returns
// nil.
func Failure(err error) error {
	if err == nil {
		return nil
	}
	return &failure{err: err}
}

// failure is the mark of Failure.
type failure struct{ err error }

func (f *failure) Error() string { return f.err.Error() }

func (f *failure) Unwrap() error { return f.err }

// RunGuarded runs fn under the guard g, as a guard stage does, for code
// that calls a guard without a Policy: it asks g.Allow with c, and if the
// call is admitted, calls fn and tells g.Record how it ended (Outcome.Err
// is fn's error, Abandoned whether ctx was done when fn returned). If fn
// panics, Record is called with ErrPanicked before the panic goes on. A
// refusal returns Allow's error as it is, without calling fn. A ctx
// already done is the guard's to judge, as in a Policy: a bulkhead refuses
// it, a breaker admits it (and fn, which receives ctx, returns at once). A
// nil ctx, g or fn is reported as ErrInvalidConfiguration. The Execute methods of this
// module's guards are RunGuarded with Call{Attempt: 1}.
func RunGuarded(ctx context.Context, g Guard, c Call, fn func(context.Context) error) error {
	switch {
	case ctx == nil:
		return invalidf("RunGuarded was given a nil context")
	case g == nil:
		return invalidf("RunGuarded was given a nil Guard")
	case fn == nil:
		return invalidf("RunGuarded was given a nil function")
	}
	p, err := g.Allow(ctx, c)
	if err != nil {
		return err
	}
	recorded := false
	defer func() {
		if !recorded {
			g.Record(p, Outcome{Err: ErrPanicked})
		}
	}()
	err = fn(ctx)
	recorded = true
	g.Record(p, Outcome{Err: err, Abandoned: ctx.Err() != nil})
	return err
}
