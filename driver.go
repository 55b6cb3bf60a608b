package backoff

import (
	"context"
	"time"
)

// driver is the state of one run of a retry stage, and of a Loop. It lives
// on the caller's stack: nothing here allocates unless a retry or an option
// needs it.
//
// It is kept small on purpose, and so is every frame between the entry
// point and the timer: a goroutine parked in a wait holds them all.
type driver struct {
	o         *retryOptions
	schedule  schedule
	start     time.Duration // the clock's reading when the run's clock started
	failedAt  time.Duration // the clock's reading at the first failure
	attempt   int
	lastDelay time.Duration // the wait before the current attempt
	lastErr   error         // the last error of an attempt that ran, as Error.LastErr gives it
	prevErr   error         // lastErr before the current attempt
	started   bool          // start is set
	failed    bool          // failedAt is set
	slept     bool          // the run has waited on a timer
	read      bool          // at holds a reading of the clock (see now)
	at        time.Duration
	reported  bool // the current attempt's failure has been reported
	bypass    int8 // 0 not yet looked up, 1 bypassed, -1 not
}

// retrying runs the retry stage configured by o around the rest of the
// stages: the retry loop. It returns nil or an *Error.
//
// The success path is kept short: what only a failure or an option needs
// is called, not written here.
func retrying(ctx context.Context, o *retryOptions, rest []Stage, c *call) error {
	d := driver{o: o}
	if o.maxElapsed > 0 {
		d.begin() // WithMaxElapsedTime counts from the call
	}
	if o.direct != nil {
		o.direct.Reset() // the BackOff contract: Reset before the first attempt
	}
	for {
		d.attempt++
		actx := ctx
		if len(o.instrumenters) > 0 {
			actx = d.beforeAttempt(ctx)
		}
		c.attempt = d.attempt
		var err error
		if len(rest) == 0 {
			err = c.fn(actx) // the innermost stage: the function itself
		} else {
			err = run(actx, rest, c)
		}
		if err == nil {
			if len(o.instrumenters) > 0 {
				d.afterSuccess(actx)
			}
			d.release(c)
			return nil
		}
		if e := d.retry(ctx, actx, err, c); e != nil {
			d.release(c)
			return e
		}
	}
}

// retry handles a failed attempt: it decides, and waits if the run goes
// on. It returns the *Error to return, or nil to make another attempt.
func (d *driver) retry(ctx, actx context.Context, err error, c *call) *Error {
	delay, e := d.failure(ctx, actx, err)
	if e != nil {
		return e
	}
	if c.discard() {
		// Releasing the result took time of its own: the wait must
		// still fit in the limits, on a fresh reading of the clock.
		d.forget()
		if cause := d.limit(ctx, delay); cause != nil {
			return d.giveUp(actx, cause, err)
		}
	}
	cause := d.wait(ctx, delay)
	d.forget() // the wait took time
	if cause != nil {
		return d.giveUp(actx, cause, err)
	}
	d.lastDelay = delay
	return nil
}

// failure handles an attempt that returned err: it runs the decision step
// and reports its verdict. It returns the wait before the next attempt, or
// the *Error to return.
func (d *driver) failure(ctx, actx context.Context, err error) (time.Duration, *Error) {
	d.reported = false
	d.markFailure()
	// The BackOff's state is made here, at the shallowest point of the
	// failure path: its allocation may run deep into the runtime.
	d.schedule.prepare(d.o.backOff)
	m := findMarks(err)
	delay, cause := d.decide(ctx, err, m)
	d.prevErr = d.lastErr
	if m.refused == nil { // a refused attempt did not run
		d.lastErr = m.lastErr(err)
	}
	if cause != nil {
		e := d.giveUp(actx, cause, err)
		if m.refused != nil {
			e.refused = true
			e.Attempts-- // the refused attempt did not run
		}
		return 0, e
	}
	d.notifyRetry(actx, err, delay)
	return delay, nil
}

// decide is the decision step, shared by the driver and the Loop: after a
// failed attempt whose error is err, with marks m, it returns the wait
// before the next attempt, or the cause of stopping. A done context comes
// first, then a guard's refusal, a Permanent mark, a Pushback that cancels
// retries, the classifier, and only then the limits: the attempt budget,
// the next wait (a Pushback's, or the BackOff's) and the time budgets it
// must fit in. A Loop, which sees no error, passes a nil err.
func (d *driver) decide(ctx context.Context, err error, m marks) (time.Duration, error) {
	switch {
	case ctx.Err() != nil: // the context decides, whatever the error says
		return 0, context.Cause(ctx)
	case m.refused != nil:
		return 0, m.refused
	case m.permanent:
		return 0, ErrPermanent
	case m.cancel:
		return 0, ErrRetriesCanceled
	case !d.o.retryable(err):
		return 0, ErrPermanent
	case d.o.maxTries > 0 && uint(d.attempt) >= d.o.maxTries:
		return 0, ErrExhausted
	}
	var delay time.Duration
	switch {
	case m.hasAfter:
		delay = m.after
		if m.restart {
			d.schedule.reset(d.o.backOff)
		}
	default:
		delay = d.schedule.next(d.o.backOff)
		if delay == Stop {
			return 0, d.stopCause()
		}
		if delay < 0 {
			return 0, invalidf("the BackOff returned a negative wait (%v)", delay)
		}
	}
	return delay, d.limit(ctx, delay)
}

// stopCause is why the BackOff returned Stop: the cause of the context a
// WithContext BackOff ends with, or ErrExhausted.
func (d *driver) stopCause() error {
	if bctx := backOffContext(d.o.backOff); bctx != nil && bctx.Err() != nil {
		return context.Cause(bctx)
	}
	return ErrExhausted
}

// limit reports which limit a wait of delay, starting now, would overrun,
// or nil if it may start.
func (d *driver) limit(ctx context.Context, delay time.Duration) error {
	if d.bypassed(ctx) {
		delay = 0
	}
	now := d.now()
	if max := d.o.maxElapsed; max > 0 && overruns(now-d.start, delay, max) {
		return ErrMaxElapsedTime
	}
	if max := d.o.maxRetryTime; max > 0 && overruns(now-d.failedAt, delay, max) {
		return ErrMaxElapsedTime
	}
	if deadline, ok := ctx.Deadline(); ok && delay > 0 && delay > d.until(deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// overruns reports whether a wait of delay, after spent of a budget of
// max, would end after the budget.
func overruns(spent, delay, max time.Duration) bool {
	return spent > max || delay > max-spent
}

// release gives back what the run borrowed. The pools serve runs that do
// not wait, where a recycled object saves an allocation on a hot path; a run
// that has waited leaves its objects to the garbage collector, so that ten
// thousand waiters woken by one cancel do not all queue up to return them.
// A run that panics leaves them to the collector too.
func (d *driver) release(c *call) {
	if d.slept || d.schedule.state != nil {
		d.releaseUsed(c)
	}
}

func (d *driver) releaseUsed(c *call) {
	if d.slept {
		c.slept = true
		return
	}
	d.schedule.release()
}
