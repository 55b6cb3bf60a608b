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
// A Loop takes the options WithBackOff, WithMaxTries, WithMaxElapsedTime
// and WithClock, with the driver's defaults. It sees no operation and no
// error, so the options about those (WithNotify, WithRetryable, RetryIf,
// RetryIfType, WithInstrumenter, WithLogger, WithName, WithPanicRecovery,
// WithAttemptTimeout) would do nothing: they are reported as
// ErrInvalidConfiguration rather than ignored. It is not safe for concurrent
// use: call its methods from the goroutine that runs the loop.
type Loop struct {
	d        driver
	override time.Duration
	pending  bool // Override was called since the last wait
	err      *Error
}

// NewLoop returns a Loop configured by opts. An invalid option makes the
// first Wait return false, and Err report it.
func NewLoop(opts ...RetryOption) *Loop {
	o := new(retryOptions).build(opts)
	if name := o.callOnly(); name != "" {
		o.fail("%s has no effect on a Loop, which runs no operation", name)
	}
	return &Loop{d: driver{o: o}}
}

// Wait reports whether another attempt should be made, after waiting for
// it. The first call returns true at once; each later call waits the next
// backoff, then returns true. It returns false, without waiting, when a
// budget is spent (WithMaxTries, WithMaxElapsedTime, the policy's Stop), when
// ctx is done or is cancelled during the wait, or when the next wait would
// end after ctx's deadline; Err then says why, and Wait keeps returning false
// until Reset.
func (l *Loop) Wait(ctx context.Context) bool {
	if l.err != nil {
		return false
	}
	if ctx == nil {
		return l.stop(invalidf("Loop.Wait was given a nil context"))
	}
	if err := l.d.o.validate(); err != nil {
		return l.stop(err)
	}
	if ctx.Err() != nil {
		return l.stop(context.Cause(ctx))
	}
	d := &l.d
	d.bypass = 0 // a new context each call
	if d.attempt == 0 {
		d.begin()
		d.schedule.start(d.o.backOff)
		d.attempt = 1
		return true
	}
	if d.o.maxTries > 0 && uint(d.attempt) >= d.o.maxTries {
		return l.stop(ErrExhausted)
	}
	var delay time.Duration
	if l.pending {
		delay, l.pending = l.override, false
	} else {
		delay = d.schedule.next(d.o.backOff)
		if delay == Stop {
			return l.stop(d.stopCause())
		}
		if delay < 0 {
			return l.stop(invalidf("the BackOff returned a negative wait (%v)", delay))
		}
	}
	if cause := d.limit(ctx, delay); cause != nil {
		return l.stop(cause)
	}
	if cause := d.wait(ctx, delay); cause != nil {
		return l.stop(cause)
	}
	d.attempt++
	return true
}

// Reset starts the Loop over: the next Wait returns true at once, and the
// policy's sequence, the attempt count and the budgets start again, as in a
// new Loop. A pending Override is dropped.
//
// Reset after a success, not after every attempt: a dependency that accepts
// and then drops every connection at once would otherwise be retried without
// any wait.
func (l *Loop) Reset() {
	l.d.attempt = 0
	l.d.started = false
	l.pending = false
	l.err = nil
}

// Override makes the next wait exactly d, such as a server's Retry-After,
// instead of the policy's next interval. The computed sequence is untouched,
// so a later wait without an override picks up where it left off, and the
// budgets still apply: a d that would overrun WithMaxElapsedTime or ctx's
// deadline makes Wait return false at once. A negative d means no wait.
func (l *Loop) Override(d time.Duration) {
	l.override, l.pending = max(d, 0), true
}

// Attempt returns the number of the attempt the last Wait admitted, from 1;
// 0 before the first Wait.
func (l *Loop) Attempt() int { return l.d.attempt }

// Elapsed returns the time since the first Wait (or the first Wait after
// Reset), on the Loop's clock; 0 before it.
func (l *Loop) Elapsed() time.Duration { return l.d.elapsed() }

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
	l.err = &Error{Cause: cause, Attempts: l.d.attempt, Elapsed: l.d.elapsed()}
	return false
}
