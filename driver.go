package backoff

import (
	"context"
	"runtime/debug"
	"time"

	"github.com/benbjohnson/clock"
)

// driver is the state of one run of Retry, RetryCtx, Do and their kin. It
// lives on the caller's stack: nothing here allocates unless a retry or an
// option needs it.
type driver struct {
	o        *retryOptions
	clock    clock.Clock   // nil: the time package
	start    time.Time     // when the run started, on clock
	startNS  time.Duration // when the run started, since epoch, without clock
	started  bool
	attempt  int
	schedule schedule
	bypass   int8 // 0 not yet looked up, 1 bypassed, -1 not
}

// run is the retry loop behind every entry point.
func run[T any](ctx context.Context, fn func(context.Context) (T, error), opts []RetryOption) (T, error) {
	o := &defaultOptions
	if len(opts) > 0 {
		o = buildOptions(opts)
		defer o.release()
	}
	d := driver{o: o, clock: o.clock}
	var last T
	if ctx == nil {
		return last, &Error{Cause: invalidf("the context is nil")}
	}
	if err := o.validate(); err != nil {
		return last, &Error{Cause: err}
	}
	if ctx.Err() != nil {
		return last, d.giveUp(ctx, context.Cause(ctx), nil, nil)
	}
	d.begin()
	d.schedule.start(o.backOff)
	for {
		d.attempt++
		actx := d.beforeAttempt(ctx)
		res, err := attempt(&d, actx, fn)
		if err == nil {
			d.afterSuccess(actx)
			return res, nil
		}
		last = res
		delay, lastErr, cause := d.decide(ctx, err)
		if cause != nil {
			return last, d.giveUp(actx, cause, lastErr, err)
		}
		d.retrying(actx, err, delay)
		if cause := d.wait(ctx, delay); cause != nil {
			return last, d.giveUp(actx, cause, lastErr, err)
		}
	}
}

// attempt calls fn once, with the attempt's own deadline if there is one,
// turning a panic into a *PanicError if asked to.
func attempt[T any](d *driver, ctx context.Context, fn func(context.Context) (T, error)) (res T, err error) {
	if d.o.attemptTimeout > 0 {
		var cancel context.CancelFunc
		if d.clock != nil {
			ctx, cancel = d.clock.WithTimeout(ctx, d.o.attemptTimeout)
		} else {
			ctx, cancel = context.WithTimeout(ctx, d.o.attemptTimeout)
		}
		defer cancel()
	}
	if d.o.recoverPanics {
		defer func() {
			if v := recover(); v != nil {
				err = &PanicError{Value: v, Stack: debug.Stack()}
			}
		}()
	}
	return fn(ctx)
}

// decide classifies a failed attempt's error, then checks the limits. It
// returns the wait before the next attempt, or the cause of stopping; and
// the error to report as Error.LastErr. A done context comes first, then a
// Permanent mark, then the classifier, and only then the limits.
func (d *driver) decide(ctx context.Context, err error) (delay time.Duration, lastErr, cause error) {
	if ctx.Err() != nil { // the context decides, whatever the error says
		if last, ok := permanentCause(err); ok {
			return 0, last, context.Cause(ctx)
		}
		_, last, _ := retryAfter(err)
		return 0, orElse(last, err), context.Cause(ctx)
	}
	if last, ok := permanentCause(err); ok {
		return 0, last, ErrPermanent
	}
	if !d.o.retryable(err) {
		return 0, err, ErrPermanent
	}
	serverDelay, last, told := retryAfter(err)
	lastErr = orElse(last, err)
	if d.o.maxTries > 0 && uint(d.attempt) >= d.o.maxTries {
		return 0, lastErr, ErrExhausted
	}
	if told {
		delay = serverDelay
		d.schedule.reset()
	} else {
		delay = d.schedule.next()
		if delay == Stop {
			return 0, lastErr, d.stopCause()
		}
		if delay < 0 {
			return 0, lastErr, invalidf("the BackOff returned a negative wait (%v)", delay)
		}
	}
	return delay, lastErr, d.limit(ctx, delay)
}

// stopCause is why the policy returned Stop: the cause of the context a
// WithContext policy ends with, or ErrExhausted.
func (d *driver) stopCause() error {
	if pctx := policyContext(d.o.backOff); pctx != nil && pctx.Err() != nil {
		return context.Cause(pctx)
	}
	return ErrExhausted
}

// limit reports which limit a wait of delay, starting now, would overrun,
// or nil if it may start.
func (d *driver) limit(ctx context.Context, delay time.Duration) error {
	if d.bypassed(ctx) {
		delay = 0
	}
	if max := d.o.maxElapsed; max > 0 {
		if elapsed := d.elapsed(); elapsed > max || delay > max-elapsed {
			return ErrMaxElapsedTime
		}
	}
	if deadline, ok := ctx.Deadline(); ok && delay > 0 && delay > d.until(deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// wait blocks for delay or until ctx is done, and returns the context's
// cause if it is. A zero wait creates no timer and does not park.
func (d *driver) wait(ctx context.Context, delay time.Duration) error {
	if ctx.Err() == nil && delay > 0 && !d.bypassed(ctx) {
		if d.clock == nil {
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
			}
		} else {
			t := d.clock.Timer(delay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
			}
		}
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return nil
}

func (d *driver) bypassed(ctx context.Context) bool {
	if d.bypass == 0 {
		d.bypass = -1
		if bypassed(ctx) {
			d.bypass = 1
		}
	}
	return d.bypass > 0
}

// epoch is the origin of the driver's monotonic readings of the time
// package. time.Since reads only the monotonic clock, which costs half of
// time.Now on the success path.
var epoch = time.Now()

// begin starts the run's elapsed-time accounting.
func (d *driver) begin() {
	d.started = true
	if d.clock != nil {
		d.start = d.clock.Now()
		return
	}
	d.startNS = time.Since(epoch)
}

// until returns the time left before t on the driver's clock, so that a
// deadline set on a mock clock (clock.Mock.WithTimeout) is read on it.
func (d *driver) until(t time.Time) time.Duration {
	if d.clock != nil {
		return d.clock.Until(t)
	}
	return time.Until(t)
}

// elapsed returns the time since begin, or 0 before it.
func (d *driver) elapsed() time.Duration {
	switch {
	case !d.started:
		return 0
	case d.clock != nil:
		return d.clock.Since(d.start)
	}
	return time.Since(epoch) - d.startNS
}

// state describes the current attempt.
func (d *driver) state(err error) State {
	return State{
		Name:           d.o.name,
		Attempt:        d.attempt,
		MaxTries:       d.o.maxTries,
		MaxElapsedTime: d.o.maxElapsed,
		Err:            err,
		Elapsed:        d.elapsed(),
	}
}

func (d *driver) beforeAttempt(ctx context.Context) context.Context {
	if len(d.o.instrumenters) == 0 {
		return ctx
	}
	s := d.state(nil)
	for _, in := range d.o.instrumenters {
		if next := in.BeforeAttempt(ctx, s); next != nil {
			ctx = next
		}
	}
	return ctx
}

func (d *driver) afterSuccess(ctx context.Context) {
	if len(d.o.instrumenters) == 0 {
		return
	}
	s := d.state(nil)
	for _, in := range d.o.instrumenters {
		in.AfterAttempt(ctx, s)
	}
}

// retrying tells Notify, the instrumenters and the logger that the attempt
// failed and will be retried after delay.
func (d *driver) retrying(ctx context.Context, err error, delay time.Duration) {
	if d.o.notify != nil {
		d.o.notify(err, delay)
	}
	if len(d.o.instrumenters) == 0 && d.o.logger == nil {
		return
	}
	s := d.state(err)
	s.NextDelay = delay
	for _, in := range d.o.instrumenters {
		in.AfterAttempt(ctx, s)
	}
	d.o.logRetry(ctx, &s)
}

// giveUp builds the *Error for a run that stops, and reports it.
func (d *driver) giveUp(ctx context.Context, cause, lastErr, attemptErr error) *Error {
	e := &Error{LastErr: lastErr, Cause: cause, Attempts: d.attempt, Elapsed: d.elapsed()}
	if len(d.o.instrumenters) > 0 || d.o.logger != nil {
		s := d.state(attemptErr)
		s.Elapsed = e.Elapsed
		s.GivingUp, s.Cause = true, cause
		for _, in := range d.o.instrumenters {
			in.AfterAttempt(ctx, s)
		}
		d.o.logGiveUp(ctx, &s)
	}
	return e
}

// orElse returns err, or fallback if err is nil.
func orElse(err, fallback error) error {
	if err != nil {
		return err
	}
	return fallback
}
