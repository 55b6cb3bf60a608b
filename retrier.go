package backoff

import (
	"context"
)

// Retrier is the driver with its options built once, as a call site that
// retries many calls the same way wants them: its DoErr runs the same loop
// as Do, without applying the options again on every call, and its Loop
// makes Loops. A retry stage of package policy is a Retrier. Build one with
// NewRetrier; the zero Retrier has Retry's defaults, as a Retry call
// with no option does.
//
// A Retrier is immutable and safe for concurrent use: each call has its own
// attempts, waits and clone of the BackOff. So a Retrier refuses a BackOff
// it cannot clone (one without a Clone method; see BackOff): every call
// then fails with ErrInvalidConfiguration, as httpretry's Transport and a
// retry stage of package policy, which are Retriers, do.
type Retrier struct {
	o   options
	set bool // o holds options; the zero Retrier's are the defaults
}

// retrierDefaults are the zero Retrier's options: Retry's defaults, and
// no attempt started once the context is done.
var retrierDefaults = func() options { o := defaults; o.refuse = true; return o }()

// NewRetrier returns a Retrier configured by opts. An invalid option makes
// every call fail before running anything, with an *Error whose Cause
// matches ErrInvalidConfiguration and names it.
func NewRetrier(opts ...RetryOption) *Retrier {
	r := &Retrier{set: true}
	r.o.refuse = true
	if r.o.apply(opts) == nil && r.o.direct != nil {
		r.o.err = invalid("WithBackOff was given a %T, which has no Clone method (see BackOff): the calls of a Retrier, which may run at once, each need a copy of their own", r.o.direct)
	}
	return r
}

// Validate reports the first option r was given that it cannot use, as an
// error matching ErrInvalidConfiguration, or nil.
func (r *Retrier) Validate() error {
	if r == nil {
		return invalid("the *Retrier is nil")
	}
	return r.options().err
}

// options returns the options r was built with.
func (r *Retrier) options() *options {
	if !r.set {
		return &retrierDefaults
	}
	return &r.o
}

// DoErr runs fn until it succeeds or r's options say stop, as DoErr does
// with the same options: fn receives the attempt's context and is never
// started once ctx is done. It returns nil or an *Error. (A method cannot
// have a type parameter: capture a result in fn.) A nil r, ctx or fn is
// reported as ErrInvalidConfiguration.
func (r *Retrier) DoErr(ctx context.Context, fn func(context.Context) error) error {
	if r == nil || ctx == nil || fn == nil {
		return unusable("DoErr", r == nil, ctx == nil)
	}
	return retry(ctx, nil, r.options(), func(ctx context.Context, _ Attempt) error { return fn(ctx) })
}

// Attempts is DoErr for a function that reads the facts of its attempt:
// its number, the time left, the error and the wait before it, as the
// driver fills them in. A layer that runs guards or sends the attempt's
// number on the wire reads them here rather than counting attempts itself.
func (r *Retrier) Attempts(ctx context.Context, fn func(context.Context, Attempt) error) error {
	if r == nil || ctx == nil || fn == nil {
		return unusable("Attempts", r == nil, ctx == nil)
	}
	return retry(ctx, nil, r.options(), fn)
}

// unusable returns the *Error of a call of the Retrier method named
// method that cannot be made: on a nil *Retrier, with a nil context, or
// else with a nil function.
func unusable(method string, nilR, nilCtx bool) error {
	switch {
	case nilR:
		return invalidCall(method + " was called on a nil *Retrier")
	case nilCtx:
		return invalidCall("Retrier." + method + " was given a nil context")
	}
	return invalidCall("Retrier." + method + " was given a nil function")
}

// Loop returns a new Loop on r's options. A Loop sees no operation and no
// error, so if r has options about those (WithNotify, WithRetryable,
// WithInstrumenter), the Loop's first Wait returns false and Err reports
// ErrInvalidConfiguration rather than ignoring them. A nil r gives a Loop
// with the defaults.
func (r *Retrier) Loop() *Loop {
	if r == nil {
		return &Loop{}
	}
	o := r.options()
	l := &Loop{p: progress{o: o}, invalid: o.err}
	switch {
	case l.invalid != nil:
	case o.notify != nil:
		l.invalid = invalid("WithNotify has no effect on a Loop, which runs no operation")
	case len(o.classifiers) > 0:
		l.invalid = invalid("WithRetryable has no effect on a Loop, which sees no error")
	case o.obs != nil:
		l.invalid = invalid("WithInstrumenter has no effect on a Loop, which runs no operation")
	}
	return l
}
