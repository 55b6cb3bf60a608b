package backoff

import (
	"context"
	"time"
)

// Instrumenter observes every attempt the driver makes: one mechanism for
// tracing, metrics and logs. Register one with WithInstrumenter; the
// modules otel and prometheus and the package slog of this repository
// provide them.
//
// For each attempt the driver calls BeforeAttempt, runs the operation with
// the context BeforeAttempt returned (so a tracer can open a span per
// attempt and hand it to the operation), then calls AfterAttempt with that
// same context and the outcome: State.Err is nil on success; otherwise
// either State.NextDelay is the wait before the next attempt, or
// State.GivingUp is true and State.Cause says why.
//
// A run that fails ends with exactly one State whose GivingUp is true. (A
// run rejected as misconfigured never starts: it reports to no
// instrumenter and returns its ErrInvalidConfiguration at once.) When the
// stop comes after the AfterAttempt of the last attempt (the context is
// cancelled during the wait, or in Notify), AfterAttempt is called a
// second time for that attempt, with GivingUp and Reported set. An attempt
// that was refused (see ErrRefused) is reported like any other, its Err the
// refusal.
//
// The driver calls the methods on the goroutine that called it, never
// concurrently for one run, and holds no lock while it does; an
// Instrumenter shared by concurrent runs must be safe for concurrent use.
// A panic in either method goes on to the caller.
type Instrumenter interface {
	// BeforeAttempt is called before each attempt and returns the context
	// for it: ctx itself, or one derived from it. A nil result means ctx.
	BeforeAttempt(ctx context.Context, s State) context.Context
	// AfterAttempt is called after each attempt with its outcome.
	AfterAttempt(ctx context.Context, s State)
}

// State describes one attempt, for an Instrumenter: its facts (Attempt),
// the run's budgets, and the outcome.
type State struct {
	// Attempt is the facts the driver hands the attempt. A refused attempt
	// (see ErrRefused) has its Number too, though Error.Attempts does not
	// count it. (The wait after an attempt is decided only once the
	// attempt has failed: see NextDelay.)
	Attempt
	// MaxTries is the attempt budget from WithMaxTries; 0 means no limit.
	MaxTries uint
	// MaxElapsedTime is the time budget from WithMaxElapsedTime; 0 means no
	// limit.
	MaxElapsedTime time.Duration
	// Err is the error the attempt returned. It is nil in BeforeAttempt and
	// after a success.
	Err error
	// Elapsed is the time since the run's clock started, as Error.Elapsed
	// measures it.
	Elapsed time.Duration
	// NextDelay is the wait before the next attempt, when there is one.
	NextDelay time.Duration
	// GivingUp is true when the driver makes no further attempt after a
	// failure; Cause then says why, as Error.Cause does.
	GivingUp bool
	// Cause is why the driver gave up: ErrPermanent, ErrExhausted,
	// ErrMaxElapsedTime, ErrRetriesCanceled, the context's cause, a
	// refused attempt's error, or an ErrInvalidConfiguration.
	Cause error
	// Reported is true in the second AfterAttempt of an attempt: its
	// outcome was reported already, with the wait that followed, and this
	// call only says that the driver gives up (the context ended during that
	// wait). An instrumenter that counts attempts counts the first call only.
	Reported bool
}

// WithInstrumenter adds an Instrumenter; several are called in the order
// given, each BeforeAttempt receiving the context the previous returned.
// A nil i, typed or not, is invalid.
func WithInstrumenter(i Instrumenter) RetryOption {
	return func(o *options) {
		if isNil(i) {
			o.fail("WithInstrumenter was given a nil Instrumenter")
			return
		}
		o.hooks = append(o.hooks, i)
		o.obs = (*instrumenters)(&o.hooks)
	}
}

// instrumenters are the observer of WithInstrumenter.
type instrumenters []Instrumenter

func (l *instrumenters) before(ctx context.Context, p progress) context.Context {
	s := p.state(nil, p.a.LastErr)
	for _, in := range *l {
		if next := in.BeforeAttempt(ctx, s); next != nil {
			ctx = next
		}
	}
	return ctx
}

// after is not inlined: a State is large, and the driver's frames stay
// small for the goroutines parked in its waits.
//
//go:noinline
func (l *instrumenters) after(ctx context.Context, p progress, err, lastErr error, next time.Duration, cause error) {
	s := p.state(err, lastErr)
	s.NextDelay = next
	if cause != nil {
		s.GivingUp, s.Cause, s.Reported = true, cause, p.reported
	}
	for _, in := range *l {
		in.AfterAttempt(ctx, s)
	}
}

// state describes the current attempt, which returned err, after lastErr.
func (p progress) state(err, lastErr error) State {
	a := p.a
	a.LastErr = lastErr
	return State{
		Attempt:        a,
		MaxTries:       p.o.maxTries,
		MaxElapsedTime: p.o.maxElapsed,
		Err:            err,
		Elapsed:        p.elapsed(),
	}
}
