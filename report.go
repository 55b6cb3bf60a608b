package backoff

import (
	"context"
	"time"
)

// What the driver tells Notify, the instrumenters and the logger.

// state describes the current attempt, as AfterAttempt sees it.
func (d *driver) state(err error) State {
	return State{
		Name:           d.o.name,
		Attempt:        d.attempt,
		MaxTries:       d.o.maxTries,
		MaxElapsedTime: d.o.maxElapsed,
		Err:            err,
		LastErr:        d.prevErr,
		LastDelay:      d.lastDelay,
		Elapsed:        d.elapsed(),
	}
}

// beforeAttempt returns the attempt's context, as the instrumenters derive
// it. It keeps the driver's reading of the clock, if any: nothing has
// happened since the run began or the last wait ended, which dropped it.
func (d *driver) beforeAttempt(ctx context.Context) context.Context {
	s := d.state(nil)
	s.LastErr = d.lastErr
	for _, in := range d.o.instrumenters {
		if next := in.BeforeAttempt(ctx, s); next != nil {
			ctx = next
		}
	}
	return ctx
}

// afterSuccess tells the instrumenters that the attempt succeeded.
func (d *driver) afterSuccess(ctx context.Context) {
	d.forget()
	s := d.state(nil)
	s.LastErr = d.lastErr
	for _, in := range d.o.instrumenters {
		in.AfterAttempt(ctx, s)
	}
}

// notifyRetry tells Notify, the instrumenters and the logger that the
// attempt failed and will be retried after delay.
func (d *driver) notifyRetry(ctx context.Context, err error, delay time.Duration) {
	if d.o.notify != nil {
		d.o.notify(err, delay)
	}
	if len(d.o.instrumenters) > 0 || d.o.logger != nil {
		s := d.state(err)
		s.NextDelay = delay
		d.report(ctx, &s)
	}
	d.reported = true
}

// giveUp builds the *Error for a run that stops after an attempt that
// returned attemptErr (nil if none ran), and reports it.
func (d *driver) giveUp(ctx context.Context, cause, attemptErr error) *Error {
	e := &Error{LastErr: d.lastErr, Cause: cause, Attempts: d.attempt, Elapsed: d.elapsed()}
	if len(d.o.instrumenters) > 0 || d.o.logger != nil {
		s := d.state(attemptErr)
		s.Elapsed = e.Elapsed
		s.GivingUp, s.Cause, s.Reported = true, cause, d.reported
		d.report(ctx, &s)
	}
	return e
}

// report hands the outcome of an attempt to the instrumenters and the
// logger. It is not inlined: a State is large, and the frames of the driver
// stay small for the goroutines that park in its waits.
//
//go:noinline
func (d *driver) report(ctx context.Context, s *State) {
	for _, in := range d.o.instrumenters {
		in.AfterAttempt(ctx, *s)
	}
	d.o.log(ctx, s)
}
