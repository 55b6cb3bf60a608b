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
// decide, wait) and the steps it is made of, top to bottom. To make a
// driver of your own, copy it with options.go, which holds the options it
// reads, into your package: they reach nothing else unexported of this
// package and import no internal package. Qualify this package's exported
// names they use (backoff.Error, backoff.BackOff, the sentinels) and call
// the copy with its own options.

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
// even when ctx is already done, unless the configuration is invalid: this
// is where it differs from Do, which never starts its function once ctx is
// done.
//
// On success it returns the operation's result and a nil error. On failure
// it returns the last result and an *Error whose Cause says why it stopped
// (ErrPermanent, ErrExhausted, ErrMaxElapsedTime, ErrRetriesCanceled,
// ErrRetryAfterTooLong, the context's cause, a refused attempt's error (see
// ErrRefused), or ErrInvalidConfiguration) and whose LastErr is the
// operation's last error.
//
// ctx bounds the run: its cancellation stops it and interrupts the wait
// between attempts. Near a deadline the driver does not start a wait after
// which too little time is left: the wait and the time the last attempt
// took must both fit before the deadline, or the run stops at once with
// Cause context.DeadlineExceeded and LastErr the last real error. No
// attempt is started once the deadline has passed, whatever the wait.
// Whether ctx is done is decided by ctx, never by the operation's error.
// The operation receives no context: capture ctx in it, or use Do.
//
// An error that names the next wait (see RetryAfterError) replaces the
// BackOff's wait, within WithMaxRetryAfter. The driver runs on the calling
// goroutine and starts none of its own. When the operation succeeds at the
// first call, it allocates nothing.
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

// RetryError is RetryErrorCtx with context.Background(), as Retry is to
// RetryCtx.
func RetryError(operation func() error, opts ...RetryOption) error {
	return RetryErrorCtx(context.Background(), operation, opts...)
}

// RetryErrorCtx is RetryCtx for an operation that returns only an error.
func RetryErrorCtx(ctx context.Context, operation func() error, opts ...RetryOption) error {
	if operation == nil {
		return invalidCall("RetryErrorCtx was given a nil operation")
	}
	return run(ctx, opts, func(context.Context) error { return operation() })
}

// Do is the driver for a function that takes a context: the same options,
// defaults and *Error as RetryCtx. fn receives the attempt's context (ctx,
// as any Instrumenter derives it) and is never started once ctx is done:
// that attempt counts as refused (see ErrRefused), so the Cause is the
// context's and LastErr the last error of an attempt that ran. Do cannot
// preempt fn: an attempt in progress ends when fn returns, which a
// well-behaved fn does promptly once its context is done.
func Do[T any](ctx context.Context, fn func(context.Context) (T, error), opts ...RetryOption) (T, error) {
	var res T
	if fn == nil {
		return res, invalidCall("Do was given a nil function")
	}
	err := run(ctx, opts, func(ctx context.Context) error {
		if ctx.Err() != nil {
			return refusedByContext{ctx}
		}
		var err error
		res, err = fn(ctx)
		return err
	})
	return res, err
}

// DoErr is Do for a function that returns only an error.
func DoErr(ctx context.Context, fn func(context.Context) error, opts ...RetryOption) error {
	if fn == nil {
		return invalidCall("DoErr was given a nil function")
	}
	return run(ctx, opts, func(ctx context.Context) error {
		if ctx.Err() != nil {
			return refusedByContext{ctx}
		}
		return fn(ctx)
	})
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

// invalidCall returns the *Error of a call the driver cannot make. It is
// kept out of line, so that the entry points' frames stay small.
//
//go:noinline
func invalidCall(msg string) error {
	return &Error{Cause: invalid("%s", msg)}
}

// refusedByContext is the refusal of an attempt that was not started
// because its context was done. It wraps the context's cause.
type refusedByContext struct{ ctx context.Context }

func (r refusedByContext) Error() string        { return context.Cause(r.ctx).Error() }
func (r refusedByContext) Unwrap() error        { return context.Cause(r.ctx) }
func (r refusedByContext) Is(target error) bool { return target == ErrRefused }

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
// and returns nil or the *Error that says why it stopped. Each turn is an
// attempt and its decision, made out of line; the wait is here, so that a
// goroutine parked in it holds only this frame and its caller's.
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

// turn makes an attempt and decides what follows it: the wait before the
// next attempt, or over and what the run returns.
func (p *progress) turn(ctx context.Context, op func(context.Context) error) (time.Duration, error) {
	p.attempt++
	actx := ctx
	if len(p.o.instrumenters) > 0 {
		actx = p.before(ctx)
	}
	err := op(actx)
	if err == nil {
		if len(p.o.instrumenters) > 0 {
			p.succeeded(actx)
		}
		return over, nil
	}
	return p.failed(ctx, actx, err)
}

// failed decides what follows an attempt that returned err on its context
// actx: the wait before the next attempt, or over and the *Error that ends
// the run, which it reports.
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
	if delay > 0 && len(p.o.instrumenters) > 0 {
		if p.waiting == nil {
			p.waiting = new(waiting)
		}
		w := p.waiting
		w.ctx, w.err, w.lastErr = actx, err, prev
	}
	return delay, nil
}

// interrupted returns the *Error of a run whose context ended during the
// wait after a failed attempt, and reports it.
func (p *progress) interrupted(ctx context.Context) error {
	if w := p.waiting; w != nil {
		return p.stop(w.ctx, context.Cause(ctx), w.err, w.lastErr)
	}
	return p.stop(ctx, context.Cause(ctx), nil, nil)
}

// progress is where a run stands. It lives on the caller's stack, and so
// it is kept small: a goroutine parked in a wait holds it.
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

// waiting is what a run that has instrumenters keeps of an attempt during
// the wait that follows it, for the report of a give-up the wait may end
// in. It is made on the heap, so that a parked goroutine holds a pointer.
type waiting struct {
	ctx          context.Context
	err, lastErr error
}

// begin starts the run: its clock, when a time budget or ctx's deadline
// needs it, and the BackOff contract, which Resets a BackOff used as it is
// before the first attempt.
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

// decide is the decision step, after an attempt that returned err: it
// returns the wait before the next attempt, or the cause of stopping. The
// context comes first, then what the error says (a refusal, a Permanent
// mark, a cancellation of retries), the classifiers, and then the limits.
func (p *progress) decide(ctx context.Context, err error) (time.Duration, error) {
	if !p.started { // the run's clock starts at its first failure
		p.start, p.started = p.now(), true
	}
	var m marks
	m.walk(err)
	p.refused, p.reported = m.refused, false
	done := ctx.Err() != nil
	// A refused attempt did not run; one the caller's own context cut short
	// leaves the real error before it.
	if !m.refused && !(done && p.lastErr != nil && errors.Is(err, ctx.Err())) {
		p.lastErr = m.lastErr(err)
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

// retryable reports whether the classifiers accept err; with none, every
// error is.
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

// next checks the limits for the next attempt and returns its wait, or the
// limit it would overrun. The rule for a named wait, shared by the Loop:
// the attempt budget, then the BackOff (its Stop ends the run), then the
// named wait, within WithMaxRetryAfter, replaces the BackOff's and the
// BackOff starts over; then the time limits.
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
		if named > p.o.maxRetryAfter {
			return 0, fmt.Errorf("%w: %v named, at most %v obeyed", ErrRetryAfterTooLong, named, p.o.maxRetryAfter)
		}
		delay = max(named, 0)
		p.b.Reset()
	}
	if ctx.Value(noWaits{}) != nil {
		delay = 0
	}
	return delay, p.limit(ctx, delay)
}

// backOff returns the BackOff the run draws its waits from, made on first
// use: a clone of the one given if it has Clone, the one given if not, or
// a fresh NewExponentialBackOff.
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

// limit reports which limit a wait of delay, starting now, would overrun:
// WithMaxElapsedTime, or ctx's deadline, which must leave after the wait
// as much time as the last attempt took; or nil if it may start.
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

// wait waits for delay, or until ctx is done, as the loop does, and
// returns the context's cause if ctx is done. The Loop waits with it.
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

// park is the one place that waits: until fired delivers or ctx is done;
// it reports whether fired did. It is small, so that the compiler inlines
// it: a goroutine parked in a wait holds no frame of park's own.
func park(ctx context.Context, fired <-chan time.Time) bool {
	select {
	case <-fired:
		return true
	case <-ctx.Done():
		return false
	}
}

// timer is a wait's timer: the time package's own on the real clock,
// without the clock package's wrapper, or the clock's.
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

// realClock is the type of clock.New's clock, which is the time package's.
var realClock = reflect.TypeOf(clock.New())

// isReal reports whether c is the time package's clock.
func isReal(c clock.Clock) bool { return reflect.TypeOf(c) == realClock }

// stop returns the *Error of a run that stops after an attempt that
// returned err, and reports it; lastErr is Error.LastErr before it.
func (p *progress) stop(ctx context.Context, cause, err, lastErr error) error {
	e := &Error{LastErr: p.lastErr, Cause: cause, Attempts: p.attempt, Elapsed: p.elapsed()}
	if p.refused {
		e.Attempts-- // the refused attempt did not run
	}
	if len(p.o.instrumenters) > 0 {
		s := p.state(err, lastErr)
		s.Elapsed, s.GivingUp, s.Cause, s.Reported = e.Elapsed, true, cause, p.reported
		p.report(ctx, &s)
	}
	return e
}

// elapsed returns the time on the run's clock since it started, or 0
// before.
func (p *progress) elapsed() time.Duration {
	if !p.started {
		return 0
	}
	return p.now() - p.start
}

// epoch is the origin of the run's readings of its clock: durations since
// it, which the time package measures on its monotonic clock alone. On a
// mock clock they may be negative; only their differences matter.
var epoch = time.Now()

// now reads the run's clock.
func (p *progress) now() time.Duration {
	if isReal(p.o.clock) {
		return time.Since(epoch)
	}
	return p.o.clock.Since(epoch)
}

// What the driver tells Notify and the instrumenters.

// state describes the current attempt, which returned err, after lastErr.
func (p *progress) state(err, lastErr error) State {
	return State{
		Attempt:        p.attempt,
		MaxTries:       p.o.maxTries,
		MaxElapsedTime: p.o.maxElapsed,
		Err:            err,
		LastErr:        lastErr,
		LastDelay:      p.lastDelay,
		Elapsed:        p.elapsed(),
	}
}

// before returns the attempt's context, as the instrumenters derive it.
func (p *progress) before(ctx context.Context) context.Context {
	s := p.state(nil, p.lastErr)
	for _, in := range p.o.instrumenters {
		if next := in.BeforeAttempt(ctx, s); next != nil {
			ctx = next
		}
	}
	return ctx
}

// succeeded tells the instrumenters that the attempt succeeded.
func (p *progress) succeeded(ctx context.Context) {
	s := p.state(nil, p.lastErr)
	p.report(ctx, &s)
}

// retrying tells Notify and the instrumenters that the attempt failed with
// err and will be retried after delay. The time they take counts against
// the limits, which it checks again when there were any.
func (p *progress) retrying(actx, ctx context.Context, err, lastErr error, delay time.Duration) error {
	if p.o.notify == nil && len(p.o.instrumenters) == 0 {
		return nil
	}
	if p.o.notify != nil {
		p.o.notify(err, delay)
	}
	if len(p.o.instrumenters) > 0 {
		s := p.state(err, lastErr)
		s.NextDelay = delay
		p.report(actx, &s)
	}
	p.reported = true
	return p.limit(ctx, delay)
}

// report hands s to the instrumenters. It is not inlined: a State is
// large, and the driver's frames stay small for the goroutines parked in
// its waits.
//
//go:noinline
func (p *progress) report(ctx context.Context, s *State) {
	for _, in := range p.o.instrumenters {
		in.AfterAttempt(ctx, *s)
	}
}

// What the driver reads from an error.

// marks are what the decision step reads from an attempt's error: a
// refusal, a Permanent mark, a cancellation of retries, and the first
// named wait.
type marks struct {
	refused   bool // the error matches ErrRefused
	permanent bool // the error matches ErrPermanent
	mark      bool // the error itself is a Permanent mark
	cancel    bool // the error matches ErrRetriesCanceled, or cancels all retries
	named     bool // an error of the chain named the next wait
	after     time.Duration
	cause     error // the cause given to RetryAfter
}

// marksOf walks err's chain and returns its marks.
func marksOf(err error) marks {
	var m marks
	m.walk(err)
	return m
}

// walk adds what err's chain holds to m, depth first as errors.Is and
// errors.As walk it. It reports true once nothing further can change the
// verdict: a refusal or a Permanent mark.
func (m *marks) walk(err error) bool {
	for top := true; err != nil; top = false {
		if e, ok := err.(*Error); ok { // its Unwrap would allocate
			return m.walk(e.Cause) || m.walk(e.LastErr)
		}
		if !m.named {
			m.nameWait(err)
		}
		if m.match(err) {
			m.mark = top && m.permanent && err != ErrPermanent
			return true
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range x.Unwrap() {
				if m.walk(inner) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

// nameWait records the wait err names, if it names one: by a method
// RetryAfter() time.Duration, or as a *RetryAfterError its As method
// gives. An error whose CancelAllRetries() returns true cancels retries.
func (m *marks) nameWait(err error) {
	n, ok := err.(interface{ RetryAfter() time.Duration })
	if x, isAs := err.(interface{ As(any) bool }); !ok && isAs {
		var ra *RetryAfterError
		if x.As(&ra) && ra != nil {
			err, n, ok = ra, ra, true
		}
	}
	if !ok {
		return
	}
	m.named, m.after = true, n.RetryAfter()
	if ra, isRA := err.(*RetryAfterError); isRA {
		m.cause = ra.Unwrap()
	}
	if c, ok := err.(interface{ CancelAllRetries() bool }); ok && c.CancelAllRetries() {
		m.cancel = true
	}
}

// match records whether err itself is, or says it is (by its Is method),
// one of the sentinels the driver reads, and reports whether it is a final
// one: a refusal or a Permanent mark.
func (m *marks) match(err error) bool {
	x, ok := err.(interface{ Is(error) bool })
	m.refused = err == ErrRefused || ok && x.Is(ErrRefused)
	m.permanent = err == ErrPermanent || ok && x.Is(ErrPermanent)
	m.cancel = m.cancel || err == ErrRetriesCanceled || ok && x.Is(ErrRetriesCanceled)
	return m.refused || m.permanent
}

// lastErr is the error to report as Error.LastErr for err: for a Permanent
// mark, the error it wraps; after a RetryAfter, the cause given to it;
// else err, whole.
func (m marks) lastErr(err error) error {
	if m.mark {
		if x, ok := err.(interface{ Unwrap() error }); ok && x.Unwrap() != nil {
			return x.Unwrap()
		}
		return err
	}
	if m.cause != nil && !m.permanent && !m.cancel {
		return m.cause
	}
	return err
}
