package backoff

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"
)

// Loop paces code that runs for the life of a process and starts its
// waiting over after each success, such as a reconnect loop:
//
//	loop := backoff.NewRetrier(backoff.WithMaxElapsedTime(0)).Loop()
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
// A Retrier makes Loops on its options (see Retrier.Loop): WithBackOff,
// WithMaxTries, WithMaxElapsedTime, WithMaxRetryAfter and WithClock, with the driver's
// defaults. Its decisions are the driver's, made by the same code: the same
// limits, in the same order, and the same wait.
//
// The zero value is a Loop with the driver's defaults, as
// NewRetrier().Loop() makes.
// A Loop is not safe for concurrent use: call its methods from the
// goroutine that runs the loop.
type Loop struct {
	p        progress
	override time.Duration
	pending  bool  // Override was called since the last wait
	reset    bool  // Reset was called after the first Wait
	invalid  error // what its Retrier was given that a Loop cannot use
	err      *Error
}

// Wait reports whether another attempt should be made, after waiting for
// it. The first call returns true at once; each later call waits the next
// backoff, then returns true. It returns false, without waiting, when a
// budget is spent (WithMaxTries, WithMaxElapsedTime, the BackOff's Stop),
// when ctx is done or is cancelled during the wait, or when the next wait
// would end after ctx's deadline; Err then says why, and Wait keeps
// returning false until Reset.
func (l *Loop) Wait(ctx context.Context) bool {
	if l.err != nil {
		return false
	}
	p := &l.p
	if p.o == nil {
		p.o = &defaults
	}
	switch {
	case ctx == nil:
		return l.stop(invalid("Loop.Wait was given a nil context"))
	case l.invalid != nil:
		return l.stop(l.invalid)
	case ctx.Err() != nil:
		return l.stop(context.Cause(ctx))
	}
	if p.a.Number == 0 && !l.reset {
		p.begin(ctx.Deadline())
		p.start, p.started = p.now(), true
		p.a.Number = 1
		return true
	}
	if l.reset {
		p.begin(ctx.Deadline())
		p.start, p.started = p.now(), true
		l.reset = false
	}
	delay, cause := p.next(ctx, l.override, l.pending)
	l.pending = false
	if cause == nil {
		p.mark = p.seen + delay
		cause = wait(ctx, p.o.clock, delay)
	}
	if cause != nil {
		return l.stop(cause)
	}
	p.a.Number++
	return true
}

// Reset starts the Loop over after a success: the BackOff's sequence, the
// attempt count and the budgets start again, and a pending Override is
// dropped. The next Wait still waits, the first interval of the fresh
// sequence, before it returns true: a dependency that accepts and then
// drops every connection at once is not retried without a wait, and a
// fleet that reconnects after a drop does not come back in one instant.
func (l *Loop) Reset() {
	if l.p.a.Number == 0 && !l.reset && l.err == nil {
		return // no Wait yet: the first returns at once, as before
	}
	l.p = progress{o: l.p.o}
	l.pending, l.reset, l.err = false, true, nil
}

// Override names the next wait, such as a server's Retry-After: d
// replaces the BackOff's next interval by the rule every entry point
// follows for a named wait (see RetryAfterError). The BackOff is asked
// first, so its Stop still ends the loop; then d replaces its wait and the
// sequence starts over; a d longer than WithMaxRetryAfter makes Wait
// return false at once with ErrRetryAfterTooLong, and the time limits and
// ctx's deadline still apply. A negative d means no wait.
func (l *Loop) Override(d time.Duration) {
	l.override, l.pending = d, true
}

// Attempt returns the number of the attempt the last Wait admitted, from 1;
// 0 before the first Wait, and after Reset until the next one.
func (l *Loop) Attempt() int { return l.p.a.Number }

// Elapsed returns the time since the first Wait (or the first Wait after
// Reset), on the Loop's clock; 0 before it. It takes the loop's context,
// as Wait does, but the time is the clock's whatever ctx holds (a
// deadline, a cancellation).
func (l *Loop) Elapsed(ctx context.Context) time.Duration { return l.elapsed() }

func (l *Loop) elapsed() time.Duration {
	if l.p.o == nil {
		return 0
	}
	return l.p.elapsed()
}

// Err returns nil while Wait returns true, and once Wait has returned false,
// an *Error whose Cause says why: ErrExhausted, ErrMaxElapsedTime,
// ErrRetryAfterTooLong, the context's cause, context.DeadlineExceeded when
// a wait would have left too little time before the deadline (see
// RetryCtx), or ErrInvalidConfiguration.
func (l *Loop) Err() error {
	if l.err == nil {
		return nil
	}
	return l.err
}

func (l *Loop) stop(cause error) bool {
	l.err = &Error{Cause: cause, Attempts: l.p.a.Number, Elapsed: l.elapsed()}
	return false
}

// wait waits for delay (no timer if zero) or ctx, and returns ctx's cause.
func wait(ctx context.Context, clk clock.Clock, delay time.Duration) error {
	if delay > 0 && ctx.Err() == nil {
		t := clk.Timer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return nil
}
