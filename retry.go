package backoff

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/benbjohnson/clock"
)

// This file is the driver: the entry points, then the loop (attempt,
// decide, wait) and its steps, top to bottom. To make a driver of your
// own, copy it with options.go (the options it reads) into your package:
// the two reach nothing else unexported and import no internal package.
// Qualify the exported names of this package they use (backoff.Error,
// backoff.BackOff, the sentinels), and call the copy with its own options.

// Operation is the function Retry calls. It is invoked at least once and may
// be retried on error. Return a Permanent error to stop retrying
// immediately, or a RetryAfterError to name the wait before the next
// attempt.
type Operation[T any] func() (T, error)

// Retry is RetryCtx with context.Background(): retrying is bounded only by
// WithMaxElapsedTime (15 minutes by default), WithMaxTries, and the
// BackOff. Use RetryCtx to bound it with a context as well.
func Retry[T any](operation Operation[T], opts ...RetryOption) (T, error) {
	return RetryCtx(context.Background(), operation, opts...)
}

// RetryCtx attempts the operation until it succeeds, returns a Permanent
// error, or a limit ends the run. It runs the operation at least once,
// even when ctx is already done (Do never starts its function then),
// unless the configuration is invalid. On success it returns the result
// and nil; on failure the last result and an *Error whose Cause says why
// it stopped (see Error) and whose LastErr is the operation's last error.
//
// ctx's cancellation stops the run and interrupts a wait. No attempt is
// started once ctx's deadline has passed, whatever the wait, and no wait
// is started that leaves less time before the deadline than the last
// attempt took: the run stops at once with Cause
// context.DeadlineExceeded and LastErr the last real error. Whether ctx is
// done is decided by ctx, never by the operation's error. An error may
// name the next wait (see RetryAfterError), within WithMaxRetryAfter.
//
// The driver runs on the calling goroutine and starts none of its own.
// When the operation succeeds at the first call, it allocates nothing.
func RetryCtx[T any](ctx context.Context, operation Operation[T], opts ...RetryOption) (T, error) {
	var res T
	if operation == nil {
		return res, invalidCall("RetryCtx was given a nil operation")
	}
	o, err := build(opts)
	if err != nil {
		return res, &Error{Cause: err}
	}
	err = retry(ctx, o, func(context.Context) error {
		var err error
		res, err = operation()
		return err
	})
	o.release()
	return res, err
}

// WithoutWaits returns a copy of ctx under which the driver (and a Loop)
// waits zero instead of each wait it would take, while attempts, the
// classifiers and every limit still run as they would. It is for a test of
// code that retries and talks to a real server over the network, where
// testing/synctest cannot advance time across real I/O; where the test
// can run inside a synctest bubble, prefer that, which keeps the waits'
// lengths. It panics if ctx is nil, as context.WithValue does.
func WithoutWaits(ctx context.Context) context.Context {
	return context.WithValue(ctx, noWaits{}, true)
}

// noWaits is the context key of WithoutWaits.
type noWaits struct{}

// invalidCall returns the *Error of a call the driver cannot make, out of
// line, so that the entry points' frames stay small.
//
//go:noinline
func invalidCall(msg string) error {
	return &Error{Cause: invalid("%s", msg)}
}

// run builds the options opts make and runs op under them.
func run(ctx context.Context, opts []RetryOption, op func(context.Context) error) error {
	o, err := build(opts)
	if err == nil {
		err = retry(ctx, o, op)
	} else {
		err = &Error{Cause: err}
	}
	o.release()
	return err
}

// retry is the loop: it runs op until it succeeds or the options say stop,
// and returns nil or the *Error that says why. Each turn (an attempt and
// its decision) is out of line and the wait is here, so that a goroutine
// parked in it holds only this frame and its caller's.
func retry(ctx context.Context, o *options, op func(context.Context) error) error {
	if ctx == nil {
		return invalidCall("the driver was given a nil context")
	}
	p := progress{o: o}
	p.begin(ctx)
	for {
		delay, err := p.turn(ctx, op)
		if delay == over {
			return err
		}
		if delay > 0 && ctx.Err() == nil {
			t := startTimer(o, delay)
			if !park(ctx, t.fired) {
				t.stop()
			}
		}
		if delay > 0 && ctx.Err() != nil {
			return p.interrupted(ctx)
		}
		p.lastDelay = delay
	}
}

// over is what turn returns for the wait when the run is over.
const over time.Duration = -1

// turn makes an attempt and decides what follows: the next wait, or over
// and what the run returns.
func (p *progress) turn(ctx context.Context, op func(context.Context) error) (time.Duration, error) {
	p.attempt++
	actx := ctx
	if p.o.obs != nil {
		actx = p.o.obs.before(actx, *p)
	}
	err := op(actx)
	if err == nil {
		if p.o.obs != nil {
			p.o.obs.after(actx, *p, nil, p.lastErr, 0, nil)
		}
		return over, nil
	}
	return p.failed(ctx, actx, err)
}

// failed decides what follows an attempt that returned err on its context
// actx: the next wait, or over and the *Error that ends the run.
func (p *progress) failed(ctx, actx context.Context, err error) (time.Duration, error) {
	if p.b == nil { // made here, not deeper in the decision: see park
		p.backOff()
	}
	prev := p.lastErr
	delay, cause := p.decide(ctx, err)
	if cause == nil {
		cause = p.retrying(actx, ctx, err, prev, delay)
	}
	if cause == nil && ctx.Err() != nil {
		cause = context.Cause(ctx)
	}
	if cause != nil {
		return over, p.stop(actx, cause, err, prev)
	}
	p.mark = p.seen + delay // when the next attempt starts
	if delay > 0 && p.o.obs != nil {
		if p.waiting == nil {
			p.waiting = new(waiting)
		}
		w := p.waiting
		w.ctx, w.err, w.lastErr = actx, err, prev
	}
	return delay, nil
}

// interrupted returns (and reports) the *Error of a run whose context
// ended during a wait.
func (p *progress) interrupted(ctx context.Context) error {
	if w := p.waiting; w != nil {
		return p.stop(w.ctx, context.Cause(ctx), w.err, w.lastErr)
	}
	return p.stop(ctx, context.Cause(ctx), nil, nil)
}

// progress is where a run stands. It lives on the caller's stack, so it is
// kept small: a goroutine parked in a wait holds it.
type progress struct {
	o         *options
	b         BackOff       // the run's BackOff, once a retry needs one
	attempt   int           // the attempt made, from 1
	lastErr   error         // the last error of an attempt that ran, as Error.LastErr gives it
	lastDelay time.Duration // the wait before the current attempt
	start     time.Duration // the clock's reading (see now) when the run's clock started: at the call, or at the first failure
	mark      time.Duration // the reading when the current attempt started, once the run reads its clock
	seen      time.Duration // the last reading of the limits
	waiting   *waiting      // an instrumented run's last attempt, during the wait after it
	started   bool          // start is set
	refused   bool          // the current attempt was refused
	reported  bool          // the current attempt's failure was reported
}

// waiting is what an instrumented run keeps of an attempt during the wait
// after it, to report a give-up there; on the heap, so that a parked
// goroutine holds a pointer only.
type waiting struct {
	ctx          context.Context
	err, lastErr error
}

// begin starts the run: its clock, if a time budget or ctx's deadline
// needs it, and Resets a BackOff used as it is.
func (p *progress) begin(ctx context.Context) {
	if _, ok := ctx.Deadline(); ok || p.o.maxElapsed > 0 {
		p.mark = p.now()
		if p.o.maxElapsed > 0 {
			p.start, p.started = p.mark, true
		}
	}
	if b := p.o.direct; b != nil {
		b.Reset()
	}
}

// decide returns the wait after an attempt that returned err, or the cause
// of stopping: the context first, then what the error says, the
// classifiers, and the limits.
func (p *progress) decide(ctx context.Context, err error) (time.Duration, error) {
	if !p.started { // the run's clock starts at its first failure
		p.start, p.started = p.now(), true
	}
	m := marksOf(err)
	p.refused, p.reported = m.refused, false
	done := ctx.Err() != nil
	// A refused attempt did not run; one the caller's own context cut short
	// leaves the real error before it.
	if !m.refused && !(done && p.lastErr != nil && errors.Is(err, ctx.Err())) {
		p.lastErr = m.last
	}
	switch {
	case done: // the context decides, whatever the error says
		return 0, context.Cause(ctx)
	case m.refused:
		return 0, err
	case m.permanent:
		return 0, ErrPermanent
	case m.cancel:
		return 0, ErrRetriesCanceled
	case !p.retryable(err):
		return 0, ErrPermanent
	}
	return p.next(ctx, m.after, m.named)
}

// retryable reports whether the classifiers (all errors, with none)
// accept err.
func (p *progress) retryable(err error) bool {
	if len(p.o.classifiers) == 0 {
		return true
	}
	for _, fn := range p.o.classifiers {
		if fn(err) {
			return true
		}
	}
	return false
}

// next returns the next wait, or the limit it would overrun; the Loop
// shares it. The rule for a named wait: the attempt budget, then the
// BackOff (its Stop ends the run), then the named wait, within
// WithMaxRetryAfter, replaces the BackOff's, which starts over.
func (p *progress) next(ctx context.Context, named time.Duration, isNamed bool) (time.Duration, error) {
	if max := p.o.maxTries; max > 0 && uint(p.attempt) >= max {
		return 0, ErrExhausted
	}
	delay := p.backOff().NextBackOff()
	switch {
	case delay == Stop:
		if c, ok := p.b.(interface{ Context() context.Context }); ok && c.Context().Err() != nil {
			return 0, context.Cause(c.Context()) // a done WithContext
		}
		return 0, ErrExhausted
	case delay < 0:
		return 0, invalid("the BackOff returned a negative wait (%v)", delay)
	}
	if isNamed {
		if named > p.o.maxNamed {
			return 0, fmt.Errorf("%w: %v named, at most %v obeyed", ErrRetryAfterTooLong, named, p.o.maxNamed)
		}
		delay = max(named, 0)
		p.b.Reset()
	}
	if ctx.Value(noWaits{}) != nil {
		delay = 0
	}
	return delay, p.limit(ctx, delay)
}

// backOff returns the run's BackOff, made on first use: a clone of the one
// given, the one given if it has no Clone, or NewExponentialBackOff().
func (p *progress) backOff() BackOff {
	if p.b == nil {
		switch b := p.o.backOff.(type) {
		case nil:
			p.b = NewExponentialBackOff()
		case cloner:
			p.b = b.Clone()
			p.b.Reset()
		default:
			p.b = b
		}
	}
	return p.b
}

// limit reports the limit a wait of delay would overrun, or nil: the time
// budget, or ctx's deadline, which must leave after the wait as much time
// as the last attempt took.
func (p *progress) limit(ctx context.Context, delay time.Duration) error {
	deadline, ok := ctx.Deadline()
	if !ok && p.o.maxElapsed == 0 {
		return nil
	}
	now := p.now()
	p.seen = now
	if max := p.o.maxElapsed; max > 0 {
		if spent := now - p.start; spent > max || delay > max-spent {
			return ErrMaxElapsedTime
		}
	}
	if ok && deadline.Sub(epoch)-now <= delay+max(now-p.mark, 0) {
		return context.DeadlineExceeded
	}
	return nil
}

// wait is the Loop's wait: as the loop's, returning ctx's cause if done.
func wait(ctx context.Context, o *options, delay time.Duration) error {
	if delay > 0 && ctx.Err() == nil {
		t := startTimer(o, delay)
		if !park(ctx, t.fired) {
			t.stop()
		}
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return nil
}

// park waits until fired delivers (it returns true) or ctx is done. It is
// inlined, so that a parked goroutine holds no frame of its own.
func park(ctx context.Context, fired <-chan time.Time) bool {
	select {
	case <-fired:
		return true
	case <-ctx.Done():
		return false
	}
}

// timer is a wait's timer: the time package's on the real clock, else the
// clock's.
type timer struct {
	fired <-chan time.Time
	real  *time.Timer
	mock  *clock.Timer
}

// startTimer starts a timer of d on the options' clock.
func startTimer(o *options, d time.Duration) timer {
	if isReal(o.clock) {
		t := time.NewTimer(d)
		return timer{fired: t.C, real: t}
	}
	t := o.clock.Timer(d)
	return timer{fired: t.C, mock: t}
}

// stop stops the timer before it fires.
func (t timer) stop() {
	if t.real != nil {
		t.real.Stop()
		return
	}
	t.mock.Stop()
}

// isReal reports whether c is clock.New's, the time package's clock.
func isReal(c clock.Clock) bool { return reflect.TypeOf(c) == realClock }

var realClock = reflect.TypeOf(clock.New())

// stop returns (and reports) the *Error of a run that stops after an
// attempt that returned err; lastErr is Error.LastErr before it.
func (p *progress) stop(ctx context.Context, cause, err, lastErr error) error {
	e := &Error{LastErr: p.lastErr, Cause: cause, Attempts: p.attempt, Elapsed: p.elapsed()}
	if p.refused {
		e.Attempts-- // the refused attempt did not run
	}
	if p.o.obs != nil {
		p.o.obs.after(ctx, *p, err, lastErr, 0, cause)
	}
	return e
}

// elapsed returns the time since the run's clock started, or 0.
func (p *progress) elapsed() time.Duration {
	if !p.started {
		return 0
	}
	return p.now() - p.start
}

// epoch is the origin of the run's readings of its clock (see now): the
// real clock's are monotonic; a mock's may be negative.
var epoch = time.Now()

// now reads the run's clock.
func (p *progress) now() time.Duration {
	if isReal(p.o.clock) {
		return time.Since(epoch)
	}
	return p.o.clock.Since(epoch)
}

// retrying tells Notify and the instrumenters of a retry after delay, and
// checks the limits again when there were any: their time counts.
func (p *progress) retrying(actx, ctx context.Context, err, lastErr error, delay time.Duration) error {
	if p.o.notify == nil && p.o.obs == nil {
		return nil
	}
	if p.o.notify != nil {
		p.o.notify(err, delay)
	}
	if p.o.obs != nil {
		p.o.obs.after(actx, *p, err, lastErr, delay, nil)
	}
	p.reported = true
	return p.limit(ctx, delay)
}

// marks are what the decision reads from an attempt's error, found as
// errors.Is and errors.As find them.
type marks struct {
	refused, permanent, cancel, named bool
	after                             time.Duration // the named wait
	last                              error         // Error.LastErr for the error
}

// marksOf returns err's marks. LastErr is what a Permanent mark wraps, the
// cause given to RetryAfter, or err.
func marksOf(err error) (m marks) {
	m.refused, m.permanent = errors.Is(err, ErrRefused), errors.Is(err, ErrPermanent)
	m.cancel, m.last = errors.Is(err, ErrRetriesCanceled), err
	if n := named(err); n != nil {
		m.named, m.after = true, n.RetryAfter()
		if c, ok := n.(interface{ CancelAllRetries() bool }); ok && c.CancelAllRetries() {
			m.cancel = true
		}
		if ra, ok := n.(*RetryAfterError); ok && ra.Unwrap() != nil && !m.permanent && !m.cancel {
			m.last = ra.Unwrap()
		}
	}
	if x, ok := err.(interface{ Unwrap() error }); ok && m.permanent && err != ErrPermanent && x.Unwrap() != nil {
		if y, ok := err.(interface{ Is(error) bool }); ok && y.Is(ErrPermanent) {
			m.last = x.Unwrap() // err is a Permanent mark
		}
	}
	return m
}

// named returns the first error of err's chain that names a wait: one with
// a RetryAfter method, or a *RetryAfterError an As method gives.
func named(err error) interface{ RetryAfter() time.Duration } {
	for err != nil {
		if n, ok := err.(interface{ RetryAfter() time.Duration }); ok {
			return n
		}
		if x, ok := err.(interface{ As(any) bool }); ok {
			if ra := new(*RetryAfterError); x.As(ra) && *ra != nil {
				return *ra
			}
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				if n := named(e); n != nil {
					return n
				}
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}
