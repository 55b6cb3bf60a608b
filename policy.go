package backoff

import (
	"context"
	"fmt"
)

// Policy is a composed resilience strategy, built once and shared: the
// stages it was built from run around every call made through it, the
// first given outermost. For example
//
//	policy := backoff.NewPolicy(
//		backoff.WithGuard(bulkhead.New(20)),        // at most 20 calls in flight
//		backoff.WithGuard(breaker),                 // fail fast while the dependency is down
//		backoff.WithRetry(backoff.WithMaxTries(3)), // 3 attempts, full jitter
//		backoff.WithTimeout(time.Second),           // each attempt gets 1 s
//	)
//	val, err := backoff.Execute(ctx, policy, action)
//
// The order is the caller's, and it matters: a guard inside the retry
// stage sees every attempt, one outside sees the whole retry loop as one
// call; a timeout inside the retry stage bounds each attempt, one outside
// bounds them all. The usual order, outermost first, is fallback,
// bulkhead, retry, breaker, timeout, recovery.
//
// A Policy is safe for concurrent use, and calls through it share nothing
// but the guards they pass (a breaker's state, a bulkhead's slots): each
// call has its own attempts, waits and copy of the BackOff. A successful
// call through a Policy of retry stages allocates nothing and reads no
// clock.
type Policy struct {
	stages    []Stage
	fallbacks []any         // the fallback functions, checked against each call's result type
	result    any           // the result check of a retry stage, if one has one
	outer     *retryOptions // the outermost retry stage, which reports a call never started
	typedOnly bool          // fallbacks or result is set: they depend on the call's result type
	err       error         // why the Policy cannot be used
}

// NewPolicy returns a Policy of the given stages, the first outermost.
// NewPolicy returns no error, so that a Policy can be a package-level
// variable: a stage it cannot use (an invalid option, a nil guard, a zero
// Stage) makes every call through it fail, before running anything, with
// an *Error whose Cause matches ErrInvalidConfiguration and names the stage.
// A Policy with no stage calls the function once.
func NewPolicy(stages ...Stage) *Policy {
	p := &Policy{}
	for i, s := range stages {
		switch {
		case s.err != nil:
			p.fail(fmt.Errorf("stage %d: %w", i+1, s.err))
			continue
		case s.kind == noStage:
			p.fail(invalidf("stage %d is a zero Stage", i+1))
			continue
		case s.kind == fallbackStage:
			p.fallbacks = append(p.fallbacks, s.v)
		case s.kind == retryStage:
			if p.outer == nil {
				p.outer = s.retry
			}
			if s.retry.result != nil {
				if p.result != nil {
					p.fail(invalidf("stage %d: a second retry stage with CheckResult; give it to one of them", i+1))
				}
				p.result = s.retry.result
			}
			p.stages = s.retry.stages(p.stages)
			continue
		}
		p.stages = append(p.stages, s)
	}
	p.typedOnly = len(p.fallbacks) > 0 || p.result != nil
	return p
}

func (p *Policy) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

// Execute runs fn through the Policy p and returns its result: the result
// of the first attempt that succeeded, or of a fallback, or on failure the
// last result fn returned (or the zero value if it never ran) with an
// *Error. (A method cannot have a type parameter, so this is a function;
// Policy.Execute is its form for functions that return only an error.)
//
// The *Error's Cause says why the call failed, as for Do: a retry stage's
// reason for stopping, a guard's refusal (its own error: ErrCircuitOpen,
// ErrBulkheadFull...), the context's cause, or ErrInvalidConfiguration. A
// Policy without a retry stage gives its function one attempt: a failure
// that no stage explains has Cause ErrExhausted.
//
// fn receives the context of its attempt: ctx, as the stages derive it (a
// timeout's deadline, an instrumenter's span, the attempt's State). fn is
// never started once ctx is done, as with Do. The call runs on the calling
// goroutine, and returns when fn does: no stage can preempt fn.
func Execute[T any](ctx context.Context, p *Policy, fn func(context.Context) (T, error)) (T, error) {
	t := typed[T]{fn: fn}
	if p == nil || p.err != nil || ctx == nil || fn == nil {
		return t.res, &Error{Cause: p.check(ctx, fn == nil)}
	}
	if p.typedOnly {
		if err := fitsPolicy[T](p, &t); err != nil {
			return t.res, &Error{Cause: err}
		}
	}
	if ctx.Err() != nil {
		return t.res, p.notStarted(ctx)
	}
	if err := t.run(ctx, p.stages, nil); err != nil {
		return t.res, settle(ctx, err, 1)
	}
	return t.res, nil
}

// Execute runs fn through the Policy p, as the function Execute does for
// a function with a result.
func (p *Policy) Execute(ctx context.Context, fn func(context.Context) error) error {
	var f func(context.Context) (struct{}, error)
	if fn != nil {
		f = func(ctx context.Context) (struct{}, error) { return struct{}{}, fn(ctx) }
	}
	_, err := Execute(ctx, p, f)
	return err
}

// check reports what makes a call through p impossible.
func (p *Policy) check(ctx context.Context, fnNil bool) error {
	switch {
	case p == nil:
		return invalidf("Execute was given a nil *Policy")
	case p.err != nil:
		return p.err
	case ctx == nil:
		return invalidf("Execute was given a nil context")
	case fnNil:
		return invalidf("Execute was given a nil function")
	}
	return nil
}

// fitsPolicy checks the typed parts of p against a call whose result is a
// T, and sets t's result check.
func fitsPolicy[T any](p *Policy, t *typed[T]) error {
	for _, f := range p.fallbacks {
		if err := fallbackFits[T](f); err != nil {
			return err
		}
	}
	rc, err := resultCheckFor[T](p.result)
	t.check = rc
	return err
}

// notStarted is the *Error of a call whose context was done before it
// started, reported as the outermost retry stage reports it.
func (p *Policy) notStarted(ctx context.Context) *Error {
	if p.outer == nil {
		return &Error{Cause: context.Cause(ctx)}
	}
	d := driver{o: p.outer}
	return d.giveUp(ctx, context.Cause(ctx), nil)
}
