package backoff

import (
	"context"
	"time"
)

// Loop paces code that runs for the life of a process and starts its
// waiting over after each success, such as a reconnect loop:
//
//	loop := backoff.NewLoop(backoff.WithMaxElapsedTime(0))
//	for loop.Wait(ctx) {
//		connected, err := conn.runOnce(ctx)
//		if connected {
//			loop.Reset()
//		}
//		if err != nil {
//			log.Warn("connection lost; reconnecting", "attempt", loop.Attempt(), "err", err)
//		}
//	}
//	return loop.Err()
//
// A Loop takes the options WithBackOff, WithMaxTries, WithMaxElapsedTime,
// WithMaxRetryTime and WithClock, with the driver's defaults. It sees no
// operation and no error, so the options about those (WithNotify,
// WithRetryable, RetryIf, RetryIfType, WithInstrumenter, WithLogger,
// WithName, WithPanicRecovery, WithAttemptTimeout, WithAttemptState,
// CheckResult) would do nothing: they are reported as
// ErrInvalidConfiguration rather than ignored. Its decisions are the
// driver's: the same order of checks, the same limits.
//
// The zero value is a Loop with the driver's defaults, as NewLoop() makes.
// A Loop is not safe for concurrent use: call its methods from the
// goroutine that runs the loop.
type Loop struct {
	d        driver
	override time.Duration
	pending  bool // Override was called since the last wait
	reset    bool // Reset was called after the first Wait
	err      *Error
}

// NewLoop returns a Loop configured by opts. An invalid option makes the
// first Wait return false, and Err report it.
func NewLoop(opts ...RetryOption) *Loop {
	o := new(retryOptions).build(&defaultOptions, opts)
	if name := o.callOnly(); name != "" {
		o.fail("%s has no effect on a Loop, which runs no operation", name)
	}
	return &Loop{d: driver{o: o}}
}

// Wait reports whether another attempt should be made, after waiting for
// it. The first call returns true at once; each later call waits the next
// backoff, then returns true. It returns false, without waiting, when a
// budget is spent (WithMaxTries, the time budgets, the BackOff's Stop), when
// ctx is done or is cancelled during the wait, or when the next wait would
// end after ctx's deadline; Err then says why, and Wait keeps returning false
// until Reset.
func (l *Loop) Wait(ctx context.Context) bool {
	if l.err != nil {
		return false
	}
	d := &l.d
	if d.o == nil {
		d.o = &defaultOptions
	}
	if ctx == nil {
		return l.stop(invalidf("Loop.Wait was given a nil context"))
	}
	if err := d.o.validate(); err != nil {
		return l.stop(err)
	}
	if ctx.Err() != nil {
		return l.stop(context.Cause(ctx))
	}
	d.bypass = 0 // a new context each call
	if d.attempt == 0 {
		d.begin()
		if !l.reset {
			if d.o.direct != nil {
				d.o.direct.Reset()
			}
			d.attempt = 1
			return true
		}
		d.schedule.reset(d.o.backOff)
		l.reset = false
	}
	d.markFailure()
	var m marks
	if l.pending {
		m.hasAfter, m.after, l.pending = true, l.override, false
	}
	delay, cause := d.decide(ctx, nil, m)
	if cause == nil {
		cause = d.wait(ctx, delay)
		d.forget()
	}
	if cause != nil {
		return l.stop(cause)
	}
	d.attempt++
	return true
}

// Reset starts the Loop over after a success: the BackOff's sequence, the
// attempt count and the budgets start again, and a pending Override is
// dropped. The next Wait still waits, the first interval of the fresh
// sequence, before it returns true: a dependency that accepts and then
// drops every connection at once is not retried without a wait, and a
// fleet that reconnects after a drop does not come back in one instant.
func (l *Loop) Reset() {
	if l.d.attempt == 0 && !l.reset && l.err == nil {
		return // no Wait yet: the first returns at once, as before
	}
	l.d.attempt = 0
	l.d.started, l.d.failed = false, false
	l.pending = false
	l.reset = true
	l.err = nil
}

// Override makes the next wait exactly d, such as a server's Retry-After,
// instead of the BackOff's next interval. The computed sequence is untouched,
// so a later wait without an override picks up where it left off, and the
// budgets still apply: a d that would overrun a time budget or ctx's
// deadline makes Wait return false at once. A negative d means no wait.
func (l *Loop) Override(d time.Duration) {
	l.override, l.pending = max(d, 0), true
}

// Attempt returns the number of the attempt the last Wait admitted, from 1;
// 0 before the first Wait, and after Reset until the next one.
func (l *Loop) Attempt() int { return l.d.attempt }

// Elapsed returns the time since the first Wait (or the first Wait after
// Reset), on the Loop's clock; 0 before it.
func (l *Loop) Elapsed() time.Duration {
	if l.d.o == nil {
		return 0
	}
	l.d.forget()
	return l.d.elapsed()
}

// Err returns nil while Wait returns true, and once Wait has returned false,
// an *Error whose Cause says why: ErrExhausted, ErrMaxElapsedTime, the
// context's cause, context.DeadlineExceeded when a wait would have overrun
// the deadline, or ErrInvalidConfiguration.
func (l *Loop) Err() error {
	if l.err == nil {
		return nil
	}
	return l.err
}

func (l *Loop) stop(cause error) bool {
	l.err = &Error{Cause: cause, Attempts: l.d.attempt, Elapsed: l.Elapsed()}
	return false
}
