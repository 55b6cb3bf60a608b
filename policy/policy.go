// Package policy composes resilience stages around a call, in an order of
// the caller's choosing, outermost first: a retry stage (the driver of
// package backoff), a timeout, panic recovery, a fallback, and any guard
// (a circuit breaker, a bulkhead, a retry budget). A Policy is built once
// and shared:
//
//	p := policy.New(
//		policy.Guard(bulkhead.New(20)),            // at most 20 calls in flight
//		policy.Guard(breaker.New()),               // fail fast while the dependency is down
//		policy.Retry(backoff.WithMaxTries(3)),     // 3 attempts, full jitter
//		policy.Timeout(time.Second),               // each attempt gets 1 s
//	)
//	val, err := policy.Do(ctx, p, fetch)
//
// Every failure is a *backoff.Error, as from backoff.Do.
//
// # Order
//
// Each stage wraps the ones after it, so where a stage stands decides what
// it sees:
//
//   - A bulkhead outside the retry stage holds one slot for all of a call's
//     attempts; inside it, a slot per attempt.
//   - A breaker outside the retry stage sees the whole retry loop as one
//     call, and trips on calls that failed all their attempts; inside it, it
//     sees each attempt, and its refusal stops the retries at once.
//   - A retry budget refuses retries only, so it belongs inside the retry
//     stage, where it sees attempt numbers; outside it sees first attempts
//     only.
//   - A [Timeout] outside the retry stage bounds the whole loop, its waits
//     included; inside it, each attempt, and an attempt that runs out of
//     time is retried.
//   - A [Fallback] outside the retry stage serves the final failure
//     (retries exhausted, a refusal, a permanent error); inside it, each
//     attempt's failure, which is seldom what is wanted.
//   - [Recover] turns a panic anywhere inside it into a *[PanicError];
//     inside the retry stage, a panicking attempt is then retried.
//
// The usual order, outermost first, is fallback, bulkhead, retry, breaker,
// timeout, recovery. The guide docs/policies.md of the repository
// describes every stage and guard at length.
package policy

import (
	"context"
	"fmt"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/setting"
)

// Policy is a composed resilience strategy, built once and shared: the
// stages it was built from run around every call made through it, the
// first given outermost.
//
// The order is the caller's, and it matters: a guard inside the retry
// stage sees every attempt, one outside sees the whole retry loop as one
// call; a timeout inside the retry stage bounds each attempt, one outside
// bounds them all. The usual order, outermost first, is fallback,
// bulkhead, retry, breaker, timeout, recovery.
//
// A Policy is safe for concurrent use, and calls through it share nothing
// but the guards they pass (a breaker's state, a bulkhead's slots): each
// call has its own attempts, waits and clone of the BackOff. A successful
// call through a Policy of retry stages allocates nothing and reads no
// clock.
//
// New compiles the stages once into segments: the stages outside every
// retry stage, and those each retry stage runs in an attempt, up to the
// next. A call runs a segment in one frame, the guards asked in order and
// told the outcome in reverse, so that the function is reached through the
// retry driver's frames and one more per segment: with a retry stage
// around a breaker and a timeout, 8 frames stand between the caller of Do
// and the function, 9 with a bulkhead outside the retry stage. A Recover
// stage, and every fifth guard of a segment, start a segment of their own.
type Policy struct {
	segs      []segment
	bare      bool  // the first segment is a retry stage alone, which a call enters directly
	plain     bool  // usable, with a retry stage and no fallback: refuse has nothing to say
	fallbacks []any // the fallback functions, checked against each call's result type
	retries   bool  // a stage is a retry stage, whose Retrier refuses an attempt once its context is done
	err       error // why the Policy cannot be used
}

// New returns a Policy of the given stages, the first outermost, compiled
// once into the form every call through it runs. New returns no error, so
// that a Policy can be a package-level variable: a stage it cannot use (an
// invalid option, a nil guard, a zero Stage) makes every call through it
// fail, before running anything, with an *Error whose Cause matches
// backoff.ErrInvalidConfiguration and names the stage. A Policy with no
// stage calls the function once.
func New(stages ...Stage) *Policy {
	p := &Policy{}
	var ok []Stage
	for i, s := range stages {
		switch {
		case s.err != nil:
			p.fail(fmt.Errorf("stage %d: %w", i+1, s.err))
		case s.kind == noStage:
			p.fail(settings.Invalid("stage %d is a zero Stage", i+1))
		default:
			switch s.kind {
			case fallbackStage:
				p.fallbacks = append(p.fallbacks, s.v)
			case retryStage:
				p.retries = true
			}
			ok = append(ok, s)
		}
	}
	if p.err == nil {
		p.segs = compile(ok)
		s := &p.segs[0]
		p.bare = s.end == endRetry && len(s.steps) == 0 && !s.recovers
		p.plain = p.retries && len(p.fallbacks) == 0
	}
	return p
}

func (p *Policy) fail(err error) { setting.Record(&p.err, err) }

// Do runs fn through the Policy p and returns its result: the result of
// the first attempt that succeeded, or of a fallback, or on failure the
// last result fn returned (or the zero value if it never ran) with an
// *backoff.Error. (A method cannot have a type parameter, so this is a
// function; Policy.DoErr is its form for functions that return only an
// error.)
//
// The *Error's Cause says why the call failed, as for backoff.Do: a retry
// stage's reason for stopping, a guard's refusal (which matches
// backoff.ErrRefused and wraps the guard's error: breaker.ErrCircuitOpen,
// bulkhead.ErrBulkheadFull...), the context's cause, or
// backoff.ErrInvalidConfiguration. A failure that no retry stage reports is
// judged as the driver judges one attempt: a refusal gives its Cause, a
// Permanent error ErrPermanent, any other error ErrExhausted.
//
// fn receives the context of its attempt: ctx, as the stages derive it (a
// timeout's deadline, an instrumenter's span). fn is never started once
// ctx is done, as with backoff.Do. The call runs on the calling goroutine,
// and returns when fn does: no stage can preempt fn.
func Do[T any](ctx context.Context, p *Policy, fn func(context.Context) (T, error)) (T, error) {
	var res T
	if ctx == nil || p == nil || !p.plain || fn == nil {
		if err := p.refuse(ctx, fn == nil, fallbackFits[T]); err != nil {
			return res, err
		}
	}
	c := call{fn: func(ctx context.Context, _ backoff.Attempt) error {
		var err error
		res, err = fn(ctx)
		return err
	}, fallback: func(f any, ctx context.Context, err error) error {
		switch g := f.(type) {
		case func(context.Context, error) (T, error):
			var ferr error
			res, ferr = g(ctx, err)
			return ferr
		case func(context.Context, error) error:
			var zero T
			res = zero
			return g(ctx, err)
		}
		return fallbackFits[T](f)
	}}
	var err error
	if p.bare { // each entry point picks its first frame itself: a frame less
		err = c.retry(p, ctx, 0)
	} else {
		err = c.run(p, ctx, backoff.Attempt{Number: 1}, 0)
	}
	if err != nil {
		return res, settle(ctx, err)
	}
	return res, nil
}

// DoErr runs fn through the Policy p, as the function Do does for a
// function with a result.
func (p *Policy) DoErr(ctx context.Context, fn func(context.Context) error) error {
	if ctx == nil || p == nil || !p.plain || fn == nil {
		if err := p.refuse(ctx, fn == nil, fallbackFits[struct{}]); err != nil {
			return err
		}
	}
	c := call{fn: func(ctx context.Context, _ backoff.Attempt) error {
		return fn(ctx)
	}, fallback: errFallback}
	var err error
	if p.bare {
		err = c.retry(p, ctx, 0)
	} else {
		err = c.run(p, ctx, backoff.Attempt{Number: 1}, 0)
	}
	if err != nil {
		return settle(ctx, err)
	}
	return nil
}

// Attempts runs fn through the Policy p, as DoErr does, handing it the
// facts of its attempt (backoff.Attempt) as the innermost retry stage
// around it fills them in: a layer that sends the attempt's number on the
// wire, or settles the attempt before reads it there rather than counting
// attempts itself. With no retry stage, fn gets the facts of a first
// attempt. A fallback of p must be one for an error alone
// (FallbackErr).
func (p *Policy) Attempts(ctx context.Context, fn func(context.Context, backoff.Attempt) error) error {
	if ctx == nil || p == nil || !p.plain || fn == nil {
		if err := p.refuse(ctx, fn == nil, fallbackFits[struct{}]); err != nil {
			return err
		}
	}
	c := call{fn: fn, fallback: errFallback}
	var err error
	if p.bare {
		err = c.retry(p, ctx, 0)
	} else {
		err = c.run(p, ctx, backoff.Attempt{Number: 1}, 0)
	}
	if err != nil {
		return settle(ctx, err)
	}
	return nil
}

// refuse returns the error of a call through p that is not to be made: one
// given a nil context or function, or through a Policy that cannot be
// used, or one of whose fallbacks does not fit the call's result (fits
// says), and one whose context is done before it starts when no retry
// stage would refuse it then. It returns nil for a call to make.
func (p *Policy) refuse(ctx context.Context, nilFn bool, fits func(f any) error) error {
	if ctx == nil || p == nil || p.err != nil || nilFn {
		return unusable(ctx == nil, p, nilFn)
	}
	for _, f := range p.fallbacks {
		if err := fits(f); err != nil {
			return &backoff.Error{Cause: err}
		}
	}
	if !p.retries && ctx.Err() != nil { // a retry stage refuses each attempt so
		return refuser.DoErr(ctx, fn0)
	}
	return nil
}

// errFallback runs the fallback f of a call that returns only an error.
func errFallback(f any, ctx context.Context, err error) error {
	switch g := f.(type) {
	case func(context.Context, error) error:
		return g(ctx, err)
	case func(context.Context, error) (struct{}, error):
		_, err = g(ctx, err)
		return err
	}
	return fallbackFits[struct{}](f)
}

// refuser reports a call whose context is done before it starts as a
// Retrier does, which never starts a function then: the attempt is
// refused, and the Cause is the context's.
var refuser backoff.Retrier

func fn0(context.Context) error { return nil }

// settle returns err as the *Error a call reports: err itself if it is
// one, else the driver's verdict on one attempt that returned it.
func settle(ctx context.Context, err error) error {
	if _, ok := err.(*backoff.Error); ok {
		return err
	}
	return backoff.RetryErrorCtx(ctx, func() error { return err }, backoff.WithMaxTries(1), backoff.WithMaxElapsedTime(0))
}

// settings makes the errors of the settings a Policy cannot use.
const settings = setting.Package("")

// unusable returns the *Error of a call that cannot be made: given a nil
// context, a nil or invalid Policy, a nil function, each of them named.
func unusable(nilCtx bool, p *Policy, nilFn bool) error {
	var errs [3]error
	if nilCtx {
		errs[0] = settings.Invalid("policy.Do was given a nil context")
	}
	if p == nil {
		errs[1] = settings.Invalid("policy.Do was given a nil *Policy")
	} else {
		errs[1] = p.err
	}
	if nilFn {
		errs[2] = settings.Invalid("policy.Do was given a nil function")
	}
	return &backoff.Error{Cause: setting.Join(errs[:]...)}
}
