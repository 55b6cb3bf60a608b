// Package guard is the contract between a guard (a circuit breaker, a
// bulkhead, a retry budget, an adaptive throttle, or any type of your own
// with two methods) and what runs calls through it: a guard stage of
// package policy, or your own code, with Run (or Admit, for code that
// makes the call itself).
//
// A guard is asked to admit each call (Allow) and told how each call it
// admitted ended (Record). Its refusal ends the call before it reaches the
// dependency: Run returns an error that matches backoff.ErrRefused and
// wraps the guard's reason, so a retry driver around it stops at once,
// with that reason as its Cause and the last real error as its LastErr.
//
// # A context already done
//
// Run never starts a call whose context is done: it returns at once,
// without asking the guard or calling the function, an error that matches
// backoff.ErrRefused and wraps context.Cause(ctx), as backoff.Do refuses
// to start an attempt then. The guard counts nothing of such a call: it
// did not take place. The Run method of every guard of this repository
// (breaker, bulkhead, budget, throttle, chaos, limiter, ratelimit,
// redisguard) is Run, and follows this rule; so does a guard stage of
// package policy. A guard's Allow, called on its own, judges a context
// already done as the guard's documentation says.
//
// # Before the wait or after it
//
// Inside a retry stage, a guard is asked to admit each retry after the
// wait before it. A guard whose refusal no wait can change, such as a
// spent token-bucket retry budget, implements Prechecker, and the retry stage asks it
// before the wait instead: the caller gets the refusal at once rather
// than after a wait that could not help. See Prechecker for which guards
// answer before the wait and why the others cannot.
package guard

import (
	"context"
	"errors"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/internal/typednil"
)

// Guard admits or refuses the calls that pass through it, and learns how
// each call it admitted ended. A guard that also implements Validator is
// checked when a policy stage is made of it.
//
// A Guard must be safe for concurrent use: a Policy is shared, and its
// guards are called from every goroutine that calls through it.
type Guard interface {
	// Allow is asked before the call. A nil error admits it: the caller
	// then makes the call and calls Record exactly once with the Permit,
	// whatever happens, a panic included. A non-nil error refuses it: the
	// call is not made, Record is not called, and the error says why
	// (breaker.ErrCircuitOpen, bulkhead.ErrBulkheadFull...). An error
	// marked with Failure is not a refusal but the call's own failure, as
	// if the function had returned it: what a chaos guard injects. A nil
	// ctx is refused with an error matching backoff.ErrInvalidConfiguration.
	//
	// Allow may block, as a bulkhead's queue does; it must then return
	// once ctx is done.
	Allow(ctx context.Context, c Call) (Permit, error)
	// Record reports how a call that Allow admitted ended.
	Record(p Permit, o Outcome)
}

// Prechecker is implemented by a guard that can refuse a retry before the
// wait for it: one whose refusal no wait can change. A retry stage of
// package policy asks every Prechecker inside it, when an attempt has
// failed and before it waits for the next one: a refusal then ends the
// stage at once, with no wait, its Cause that refusal, as the same refusal
// from Allow after the wait would have ended it. The rule, for a guard
// inside a retry stage:
//
//   - A guard whose answer depends on counts that only calls change, not
//     time, answers before the wait, and should implement Prechecker: a
//     token-bucket retry budget (budget.NewTokenBucket) refuses a retry it
//     has no tokens for whatever the wait, as gRFC A6 decides on "no
//     retry" when the failure arrives; a breaker forced open
//     (breaker.ForceOpen) stays so.
//   - A guard whose answer the wait itself may change answers only after
//     it, from Allow: a breaker whose open duration may end during the
//     wait, and whose half-open probe needs that time to pass; a rate
//     limiter, whose bucket the wait fills; a bulkhead or an adaptive
//     limiter, whose calls in flight end; a throttle or a ratio retry
//     budget (budget.NewRatio), whose window slides.
type Prechecker interface {
	// Precheck returns the error Allow would refuse the call c with if
	// asked now, when no wait before it could change that answer; nil
	// otherwise. A refusal is final: the call is not made, Allow is not
	// asked for it, and the guard counts it as a refusal of its own, as
	// Allow would. nil promises nothing and takes nothing: Allow is still
	// asked, after the wait. A retry stage asks before it knows whether
	// its own limits (WithMaxTries, a time budget, a classifier) allow the
	// retry, so a refusal may be counted for a retry the stage would not
	// have made anyway; the stage's Cause is then its own limit. Precheck
	// must not block, and must be safe for concurrent use.
	Precheck(c Call) error
}

// Validator is implemented by a guard that can check its own settings. A
// guard stage of package policy calls it when the stage is made, so that
// a Policy with a misconfigured guard fails every call before running
// anything.
type Validator interface {
	Validate() error
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

// ErrPanicked is the Outcome.Err of a call that panicked: Run (and so a
// guard stage) calls Record with it before the panic goes on, so that a
// guard's classifier can tell it from the call's own errors.
var ErrPanicked = errors.New("backoff: the call panicked")

// Run runs fn under the guard g, for a call described by c: it asks
// g.Allow, and if the call is admitted, calls fn and tells g.Record how it
// ended (Outcome.Err is fn's error, Abandoned whether ctx was done when fn
// returned). A guard stage of package policy runs its stages so, and every
// guard's Run method is Run with Call{Attempt: 1}.
//
// A refusal returns, without calling fn, an error that matches
// backoff.ErrRefused and wraps Allow's error (errors.Is finds
// breaker.ErrCircuitOpen in it), a misconfigured guard's
// ErrInvalidConfiguration included; an error Allow marked with Failure is
// returned unmarked, as fn's own failure would be. A ctx already done is
// refused before the guard is asked, with an error that wraps its cause
// (see the package documentation).
//
// If fn panics, Record is called with ErrPanicked before the panic goes
// on, so a guard holds nothing for a call that is gone; a panic in Allow or
// Record itself goes on unchanged. No lock is held while fn runs. A nil
// ctx, g or fn is reported as an error matching
// backoff.ErrInvalidConfiguration, which names each of them.
func Run(ctx context.Context, g Guard, c Call, fn func(context.Context) error) error {
	nilGuard := g == nil || typednil.Is(g)
	if ctx == nil || nilGuard || fn == nil {
		return unusable("Run", ctx == nil, nilGuard, fn == nil)
	}
	p, err := admit(ctx, g, c)
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

// Admit asks g to admit the call c, as Run does before it calls its
// function, for code that runs the call itself: package policy runs the
// guards of a stage list so, each in turn, without a frame per guard. A
// nil error admits the call: the caller then makes it and calls g.Record
// exactly once with the Permit, whatever happens (Outcome.Err as Run sets
// it: the call's error, or ErrPanicked if it panicked; Abandoned whether
// ctx was done when it returned). A non-nil error is what Run would
// return without calling its function: a ctx already done is refused
// without asking g, a refusal of g's matches backoff.ErrRefused (see
// Refusal), an error Allow marked with Failure comes back unmarked, as the
// call's own failure. A nil ctx or g, typed or not, is reported as an
// error matching backoff.ErrInvalidConfiguration.
func Admit(ctx context.Context, g Guard, c Call) (Permit, error) {
	nilGuard := g == nil || typednil.Is(g)
	if ctx == nil || nilGuard {
		return Permit{}, unusable("Admit", ctx == nil, nilGuard, false)
	}
	return admit(ctx, g, c)
}

// admit is Admit for a ctx and g known to be usable.
func admit(ctx context.Context, g Guard, c Call) (Permit, error) {
	if ctx.Err() != nil {
		return Permit{}, refused(context.Cause(ctx))
	}
	p, err := g.Allow(ctx, c)
	if err != nil {
		return Permit{}, refused(err)
	}
	return p, nil
}

// refused returns the error of a call that Allow refused with err: err
// unmarked if Allow marked it with Failure, else Refusal(err).
func refused(err error) error {
	if f, ok := err.(*failure); ok {
		return f.err
	}
	return Refusal(err)
}

// Refusal returns err, a guard's reason for refusing a call, as Run
// returns a refusal: err itself if it matches backoff.ErrRefused already,
// else err marked so that it does, its message unchanged (errors.Is and
// errors.As see through the mark). Code that asks a guard's Allow itself
// rather than through Run, as package hedge asks its budget guard,
// reports the guard's refusals with it. Refusal(nil) returns nil.
func Refusal(err error) error {
	if err == nil || errors.Is(err, backoff.ErrRefused) {
		return err
	}
	return &refusal{err: err}
}

// refusal marks the error of a guard that refused a call.
type refusal struct{ err error }

func (r *refusal) Error() string { return r.err.Error() }

func (r *refusal) Unwrap() error { return r.err }

// Is reports that a refusal matches backoff.ErrRefused.
func (r *refusal) Is(target error) bool { return target == backoff.ErrRefused }

// Failure marks err, returned by a Guard's Allow, as the call's own
// failure rather than a refusal: the call is not made, and whatever runs it
// handles err as if the function had returned it (a retry stage retries
// it, a breaker outside counts it, a fallback sees it as the last error).
// A chaos guard injects its errors so. Failure(nil) returns nil.
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

// IsRefusal reports whether err says that a guard refused a call before
// anything reached the dependency: a refusal as an outer Guard sees it in
// Outcome.Err (an error matching backoff.ErrRefused), or a *backoff.Error
// whose Cause is one and which made no attempt. A call that ran attempts
// before a guard refused a retry is not a refusal: the dependency saw
// them. It lets a guard tell a call its dependency never saw from one that
// failed. It allocates nothing.
func IsRefusal(err error) bool {
	if e := backoff.MarksOf(err).Run; e != nil {
		return e.Attempts == 0 && isRefused(e.Cause)
	}
	return isRefused(err)
}

// isRefused is errors.Is(err, backoff.ErrRefused).
func isRefused(err error) bool { return errors.Is(err, backoff.ErrRefused) }

// settings makes the errors of what Run cannot use.
const settings = setting.Package("")

// unusable returns the error of a Run (or an Admit) given a nil context,
// guard or function: each of them named.
func unusable(name string, nilCtx, nilGuard, nilFn bool) error {
	var errs [3]error
	if nilCtx {
		errs[0] = settings.Invalid("guard.%s was given a nil context", name)
	}
	if nilGuard {
		errs[1] = settings.Invalid("guard.%s was given a nil Guard", name)
	}
	if nilFn {
		errs[2] = settings.Invalid("guard.%s was given a nil function", name)
	}
	return setting.Join(errs[:]...)
}
