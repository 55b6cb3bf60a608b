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
//
// It is kept small on purpose, and so is every frame between run and the
// timer: a goroutine parked in a wait holds them all, and a retry loop that
// never needs more stack than a bare wait keeps a waiting goroutine on the
// runtime's smallest stack.
type driver struct {
	o        *retryOptions
	schedule schedule
	start    time.Duration // the clock's reading when the run started
	attempt  int
	started  bool
	slept    bool // the run has waited on a timer
	bypass   int8 // 0 not yet looked up, 1 bypassed, -1 not
}

// attemptFunc runs one attempt. The entry points wrap the caller's
// function in one that keeps its result where they can return it, so the
// loop itself is not generic and its frames stay small.
type attemptFunc func(ctx context.Context) error

// run is the retry loop behind every entry point. It returns nil or an
// *Error.
//
// The operation is fn, which takes the attempt's context (Do), or op when
// fn is nil (Retry and its kin: RetryError and RetryErrorCtx pass the
// caller's function as it is, with no closure around it).
func run(ctx context.Context, fn attemptFunc, op func() error, opts []RetryOption) error {
	d := driver{o: &defaultOptions}
	if len(opts) > 0 {
		// Taken here rather than in build, so that an allocation, which
		// may run deep into the runtime, starts from a shallow stack.
		o, _ := optionsPool.Get().(*retryOptions)
		if o == nil {
			o = new(retryOptions)
		}
		d.o = o.build(opts)
	}
	defer d.release(len(opts) > 0)
	if e := d.setup(ctx, fn == nil && op == nil, fn != nil); e != nil {
		return e
	}
	for {
		d.attempt++
		actx := d.beforeAttempt(ctx)
		err := d.call(actx, fn, op)
		if err == nil {
			d.afterSuccess(actx)
			return nil
		}
		// The policy's state is made here, at the shallowest point of the
		// failure path: its allocation may run deep into the runtime.
		d.schedule.prepare(d.o.backOff)
		delay, e := d.failed(ctx, actx, err)
		if e != nil {
			return e
		}
		// The wait, written out rather than a call to wait (which the Loop
		// uses): a goroutine parked here holds every frame above sleep.
		if delay > 0 && ctx.Err() == nil && !d.bypassed(ctx) {
			d.sleep(ctx, delay)
		}
		if ctx.Err() != nil {
			return d.giveUp(actx, context.Cause(ctx), findMarks(err).lastErr(err), err)
		}
	}
}

// setup checks what run was given and starts the run: it returns the
// *Error to return at once, or nil.
//
//go:noinline
func (d *driver) setup(ctx context.Context, nilOperation, takesContext bool) *Error {
	switch {
	case ctx == nil:
		return &Error{Cause: invalidf("the context is nil")}
	case nilOperation:
		return &Error{Cause: invalidf("the operation is nil")}
	case d.o.attemptTimeout > 0 && !takesContext:
		return &Error{Cause: invalidf("WithAttemptTimeout applies only to Do, whose function receives the attempt's context")}
	}
	if err := d.o.validate(); err != nil {
		return &Error{Cause: err}
	}
	if ctx.Err() != nil {
		return d.giveUp(ctx, context.Cause(ctx), nil, nil)
	}
	d.begin()
	d.schedule.start(d.o.backOff)
	return nil
}

// failed handles an attempt that returned err: it decides whether to
// retry and reports the retry. It returns the wait before the next
// attempt, or the *Error to return.
func (d *driver) failed(ctx, actx context.Context, err error) (time.Duration, *Error) {
	delay, lastErr, cause := d.decide(ctx, err)
	if cause != nil {
		return 0, d.giveUp(actx, cause, lastErr, err)
	}
	d.retrying(actx, err, delay)
	return delay, nil
}

// release gives back what the run borrowed. The pools serve runs that do
// not wait, where a recycled object saves an allocation on a hot path; a run
// that has waited leaves its objects to the garbage collector, so that ten
// thousand waiters woken by one cancel do not all queue up to return them.
func (d *driver) release(options bool) {
	if d.slept {
		return
	}
	d.schedule.release()
	if options {
		d.o.release()
	}
}

// call runs fn once, with the attempt's own deadline if there is one,
// turning a panic into a *PanicError if asked to.
func (d *driver) call(ctx context.Context, fn attemptFunc, op func() error) (err error) {
	if d.o.attemptTimeout > 0 {
		var cancel context.CancelFunc
		if c := d.o.clock; c != nil {
			ctx, cancel = c.WithTimeout(ctx, d.o.attemptTimeout)
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
	if fn == nil {
		return op()
	}
	return fn(ctx)
}

// decide classifies a failed attempt's error, then checks the limits. It
// returns the wait before the next attempt, or the cause of stopping; and
// the error to report as Error.LastErr. A done context comes first, then a
// Permanent mark, then the classifier, and only then the limits.
func (d *driver) decide(ctx context.Context, err error) (delay time.Duration, lastErr, cause error) {
	m := findMarks(err)
	lastErr = m.lastErr(err)
	switch {
	case ctx.Err() != nil: // the context decides, whatever the error says
		return 0, lastErr, context.Cause(ctx)
	case m.permanent:
		return 0, lastErr, ErrPermanent
	case !d.o.retryable(err):
		return 0, lastErr, ErrPermanent
	case d.o.maxTries > 0 && uint(d.attempt) >= d.o.maxTries:
		return 0, lastErr, ErrExhausted
	}
	if m.retryAfter != nil {
		delay = max(m.retryAfter.Duration, 0)
		d.schedule.reset(d.o.backOff)
	} else {
		delay = d.schedule.next(d.o.backOff)
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
	if delay > 0 && ctx.Err() == nil && !d.bypassed(ctx) {
		d.sleep(ctx, delay)
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return nil
}

// sleep waits for delay or until ctx is done, on the driver's clock.
func (d *driver) sleep(ctx context.Context, delay time.Duration) {
	d.slept = true
	if c := d.o.clock; c != nil {
		sleepOn(c, ctx, delay)
		return
	}
	sleep(ctx, delay)
}

// sleep waits for d or until ctx is done, on the time package. It and
// sleepOn are kept small: a goroutine parked here holds their frames.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
	}
}

// sleepOn is sleep on the clock c.
func sleepOn(c clock.Clock, ctx context.Context, d time.Duration) {
	t := c.Timer(d)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
	}
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

// epoch is the origin of the driver's readings of its clock. Since reads
// only the monotonic clock of the time package, which costs half of
// time.Now; on a mock clock the readings are negative, and their
// differences are all that matters.
var epoch = time.Now()

// now reads the driver's clock, as a duration since epoch.
func (d *driver) now() time.Duration {
	if c := d.o.clock; c != nil {
		return c.Since(epoch)
	}
	return time.Since(epoch)
}

// begin starts the run's elapsed-time accounting.
func (d *driver) begin() {
	d.started = true
	d.start = d.now()
}

// until returns the time left before t on the driver's clock, so that a
// deadline set on a mock clock (clock.Mock.WithTimeout) is read on it.
func (d *driver) until(t time.Time) time.Duration {
	if c := d.o.clock; c != nil {
		return c.Until(t)
	}
	return time.Until(t)
}

// elapsed returns the time since begin, or 0 before it.
func (d *driver) elapsed() time.Duration {
	if !d.started {
		return 0
	}
	return d.now() - d.start
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
	if len(d.o.instrumenters) > 0 || d.o.logger != nil {
		s := d.state(err)
		s.NextDelay = delay
		d.report(ctx, &s)
	}
}

// giveUp builds the *Error for a run that stops, and reports it.
func (d *driver) giveUp(ctx context.Context, cause, lastErr, attemptErr error) *Error {
	e := &Error{LastErr: lastErr, Cause: cause, Attempts: d.attempt, Elapsed: d.elapsed()}
	if len(d.o.instrumenters) > 0 || d.o.logger != nil {
		s := d.state(attemptErr)
		s.Elapsed = e.Elapsed
		s.GivingUp, s.Cause = true, cause
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
