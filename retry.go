package backoff

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/internal/setting"
)

// This file is the driver: the entry points, then the loop (attempt,
// decide, wait) and the steps it is made of, top to bottom. Copy it, with
// options.go and the contextBackOff of context.go, to make a driver of
// your own. Outside this module, replace what they take from its internal
// packages: the invalid-configuration errors of settings (fmt.Errorf
// wrapping ErrInvalidConfiguration), setting.RealClock (the default
// clock: clock.New()) and typednil.Is (whether an interface holds a nil
// pointer: reflect).

// Operation is the function Retry calls. It is invoked at least once and may
// be retried on error. Return a Permanent error to stop retrying
// immediately, or a RetryAfterError to control the delay before the next
// attempt.
type Operation[T any] func() (T, error)

// Retry is RetryCtx with context.Background(): retrying is bounded only by
// WithMaxElapsedTime (15 minutes by default), WithMaxTries, and the
// BackOff. Use RetryCtx to bound it with a context as well.
func Retry[T any](operation Operation[T], opts ...RetryOption) (T, error) {
	return RetryCtx(context.Background(), operation, opts...)
}

// RetryCtx attempts the operation until it succeeds, returns a Permanent
// error, or backoff completes. It ensures the operation is executed at
// least once, even when ctx is already done (then the Cause is the
// context's, and LastErr the operation's error), unless the configuration
// is invalid. This is where it differs from Do and DoErr, which never start
// their function once ctx is done.
//
// On success it returns the operation result and a nil error. On any failure
// it returns the last result and an *Error whose Cause reports why it
// stopped — ErrPermanent, ErrExhausted, ErrMaxElapsedTime,
// ErrRetriesCanceled, the context cancellation cause, the error of an
// attempt that was refused (see ErrRefused), or ErrInvalidConfiguration —
// and whose LastErr holds the last operation error. See Error.
//
// ctx bounds the retry loop: its cancellation or deadline stops further
// attempts and interrupts the wait between them, and a wait that would end
// after ctx's deadline is not started (the Cause is then
// context.DeadlineExceeded and LastErr the operation's last error).
// Whether ctx is done is decided by ctx.Err(), never by the operation's
// error: an error matching context.Canceled or context.DeadlineExceeded
// while ctx is alive came from another context and is retried like any
// other. The operation receives no context, so capture ctx inside the
// operation if you want cancellation to abort an in-flight attempt, or use
// Do. To bound only how long backoff keeps retrying, without affecting
// in-flight attempts, use WithMaxElapsedTime instead.
//
// The driver runs on the calling goroutine and starts none of its own. When
// the operation succeeds at the first call, it allocates nothing.
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

// RetryErrorCtx is RetryCtx for an operation that returns no result, only an
// error. It behaves identically to RetryCtx in every other respect,
// including the options it accepts and the *Error it returns on failure.
func RetryErrorCtx(ctx context.Context, operation func() error, opts ...RetryOption) error {
	if operation == nil {
		return invalidCall("RetryErrorCtx was given a nil operation")
	}
	return run(ctx, opts, func(context.Context) error { return operation() })
}

// Do is the driver for a function that takes a context: the same options,
// the same defaults and the same *Error as RetryCtx. fn receives the
// attempt's context: ctx, as derived by any Instrumenter. fn is never
// started once ctx is done: then the attempt counts as refused (see
// ErrRefused), so the Cause is the context's, LastErr the last error of an
// attempt that ran, and Attempts counts only those; RetryCtx would run its
// operation once.
//
// Do cannot preempt fn: cancelling ctx ends the wait between attempts at
// once, but an attempt in progress ends only when fn returns, which a
// well-behaved fn does promptly when its context is done. To bound each
// attempt, derive a context with a timeout inside fn, or use a Timeout
// stage of package policy.
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

// invalidCall returns the *Error of a call the driver cannot make, which
// msg describes. It is kept out of line: the entry points' frames, which
// a goroutine parked in a wait holds, stay small.
//
//go:noinline
func invalidCall(msg string) error {
	return &Error{Cause: settings.Invalid("%s", msg)}
}

// refusedByContext is the refusal of an attempt that Do did not start
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
// attempt and its decision, then the wait. The turn is made out of line
// and the wait here, so that a goroutine parked in the wait holds only
// this frame and its caller's.
func retry(ctx context.Context, o *options, op func(context.Context) error) error {
	if ctx == nil {
		return invalidCall("the driver was given a nil context")
	}
	p := progress{o: o}
	if o.maxElapsed > 0 || o.direct != nil {
		p.begin()
	}
	for {
		delay, err := p.turn(ctx, op)
		if delay == over {
			return err
		}
		if delay > 0 && ctx.Err() == nil {
			t := startTimer(o.clock, delay)
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
// next attempt, or over and what the run returns: nil on success, or the
// *Error that ends it.
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
// actx: it returns the wait before the next attempt, or over and the
// *Error that ends the run, which it reports. A run with instrumenters
// keeps what the report of a give-up during the wait needs (see waiting).
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

// progress is where a run stands: the attempt it is on, what the attempts
// returned, the clock's readings and the BackOff it draws its waits from.
// It lives on the caller's stack, and so it is kept small: a goroutine
// parked in a wait holds it.
type progress struct {
	o         *options
	b         BackOff       // the run's BackOff, once a retry needs one
	attempt   int           // the attempt made, from 1
	lastErr   error         // the last error of an attempt that ran, as Error.LastErr gives it
	lastDelay time.Duration // the wait before the current attempt
	start     time.Duration // the clock's reading (see now) when the run's clock started: at the call, or at the first failure
	waiting   *waiting      // an instrumented run's last attempt, during the wait after it
	started   bool          // start is set
	refused   bool          // the current attempt was refused
	reported  bool          // the current attempt's failure was reported
}

// waiting is what a run that has instrumenters keeps of an attempt during
// the wait that follows it, for the report of a give-up that the wait may
// end in: the attempt's context, its error, and Error.LastErr before it.
// It is made on the heap at the run's first wait, so that a goroutine
// parked in a wait holds only a pointer to it.
type waiting struct {
	ctx          context.Context
	err, lastErr error
}

// begin starts the run: its clock, if WithMaxElapsedTime counts from the
// call, and the BackOff contract, which Resets a BackOff used as it is
// before the first attempt. A BackOff that implements Cloner is cloned, and
// the clone Reset, when the first retry needs a wait.
func (p *progress) begin() {
	if p.o.maxElapsed > 0 {
		p.start, p.started = p.now(), true
	}
	if b := p.o.direct; b != nil {
		b.Reset()
	}
}

// decide is the decision step, after an attempt that returned err: it
// returns the wait before the next attempt, or the cause of stopping. The
// context comes first, then what the error says (a refusal, a Permanent
// mark, a cancellation of retries), the classifier, and only then the
// limits: the attempt budget, the next wait (a RetryAfterError's, or the
// BackOff's) and the time it must fit in.
func (p *progress) decide(ctx context.Context, err error) (time.Duration, error) {
	if !p.started { // the run's clock starts at its first failure
		p.start, p.started = p.now(), true
	}
	var m marks
	m.walk(err)
	p.refused, p.reported = m.refused, false
	if !m.refused { // a refused attempt did not run
		p.lastErr = m.lastErr(err)
	}
	switch {
	case ctx.Err() != nil: // the context decides, whatever the error says
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
	var delay time.Duration
	if m.named {
		delay = m.after
		p.backOff().Reset() // the sequence starts over after a named wait
	}
	return p.next(ctx, delay, m.named)
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

// next checks the limits for the next attempt, whose wait is named, or
// else the BackOff's next: it returns the wait, or the limit it would
// overrun. The Loop shares it.
func (p *progress) next(ctx context.Context, named time.Duration, isNamed bool) (time.Duration, error) {
	if max := p.o.maxTries; max > 0 && uint(p.attempt) >= max {
		return 0, ErrExhausted
	}
	delay := max(named, 0)
	if !isNamed {
		delay = p.backOff().NextBackOff()
		switch {
		case delay == Stop:
			if c, ok := p.b.(*contextBackOff); ok && c.ctx.Err() != nil {
				return 0, context.Cause(c.ctx)
			}
			return 0, ErrExhausted
		case delay < 0:
			return 0, settings.Invalid("the BackOff returned a negative wait (%v)", delay)
		}
	}
	return delay, p.limit(ctx, delay)
}

// backOff returns the BackOff the run draws its waits from, made on first
// use: a clone of the one given if it implements Cloner, the one given if
// not, or a fresh NewExponentialBackOff.
func (p *progress) backOff() BackOff {
	if p.b == nil {
		switch b := p.o.backOff.(type) {
		case nil:
			p.b = NewExponentialBackOff()
		case Cloner:
			p.b = b.Clone()
			p.b.Reset()
		default:
			p.b = b
		}
	}
	return p.b
}

// limit reports which limit a wait of delay, starting now, would overrun:
// WithMaxElapsedTime, or ctx's deadline; or nil if it may start.
func (p *progress) limit(ctx context.Context, delay time.Duration) error {
	if max := p.o.maxElapsed; max > 0 {
		if spent := p.now() - p.start; spent > max || delay > max-spent {
			return ErrMaxElapsedTime
		}
	}
	if deadline, ok := ctx.Deadline(); ok && delay > 0 && delay > p.o.clock.Until(deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// wait waits for delay, or until ctx is done, on clk, as the loop does,
// and returns the context's cause if ctx is done. A zero wait creates no
// timer and does not park. The Loop waits with it.
func wait(ctx context.Context, clk clock.Clock, delay time.Duration) error {
	if delay > 0 && ctx.Err() == nil {
		t := startTimer(clk, delay)
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
// it into its callers: a goroutine parked in a wait holds no frame of
// park's own, and the frames it does hold are kept small, so that a
// waiter's stack stays within the 2 KiB a goroutine starts with.
func park(ctx context.Context, fired <-chan time.Time) bool {
	select {
	case <-fired:
		return true
	case <-ctx.Done():
		return false
	}
}

// timer is a wait's timer: the time package's own on the default clock,
// without the clock package's wrapper, or the clock's.
type timer struct {
	fired <-chan time.Time
	real  *time.Timer
	mock  *clock.Timer
}

// startTimer starts a timer of d on clk.
func startTimer(clk clock.Clock, d time.Duration) timer {
	if clk == setting.RealClock {
		t := time.NewTimer(d)
		return timer{fired: t.C, real: t}
	}
	t := clk.Timer(d)
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

// stop returns the *Error of a run that stops after an attempt that
// returned err, and reports it; lastErr is Error.LastErr before that
// attempt.
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

// epoch is the origin of the run's readings of its clock: the readings are
// durations since it, which the time package measures on its monotonic
// clock alone, at half the cost of a time.Now. On a mock clock they may be
// negative; only their differences matter.
var epoch = time.Now()

// now reads the run's clock: the time package's monotonic clock directly
// when the run has the default clock, for the cost of the reading alone.
func (p *progress) now() time.Duration {
	if p.o.clock == setting.RealClock {
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

// retrying tells Notify and the instrumenters that the attempt failed
// with err and will be retried after delay. The time they take counts
// against the limits, which it checks again, on ctx, when there were any:
// it returns the limit the wait would now overrun, or nil.
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
// large, and the frames of the driver stay small for the goroutines that
// park in its waits.
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
// RetryAfterError.
type marks struct {
	refused   bool // the error matches ErrRefused
	permanent bool // the error matches ErrPermanent
	mark      bool // the error itself says so: it is a Permanent mark
	cancel    bool // the error matches ErrRetriesCanceled
	named     bool // a RetryAfterError named the next wait
	after     time.Duration
	cause     error // the cause given to RetryAfter
}

// marksOf walks err's chain once, depth first as errors.Is and errors.As
// do, and returns its marks.
func marksOf(err error) marks {
	var m marks
	m.walk(err)
	return m
}

// walk adds what err's chain holds to m. It reports true once nothing
// further can change the verdict: a refusal or a Permanent mark.
func (m *marks) walk(err error) bool {
	for top := true; err != nil; top = false {
		switch e := err.(type) {
		case *Error: // its Unwrap would allocate
			return m.walk(e.Cause) || m.walk(e.LastErr)
		case *RetryAfterError:
			m.retryAfter(e)
		}
		if m.match(err) {
			m.mark = top && m.permanent && err != ErrPermanent
			return true
		}
		if x, ok := err.(interface{ As(any) bool }); ok {
			var ra *RetryAfterError
			if x.As(&ra) {
				m.retryAfter(ra)
			}
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

// match records whether err itself is, or says it is (by its Is method),
// one of the sentinels the driver reads, and reports whether it is a final
// one: a refusal or a Permanent mark, which no other error of the chain
// can outweigh.
func (m *marks) match(err error) bool {
	x, ok := err.(interface{ Is(error) bool })
	m.refused = err == ErrRefused || ok && x.Is(ErrRefused)
	m.permanent = err == ErrPermanent || ok && x.Is(ErrPermanent)
	m.cancel = m.cancel || err == ErrRetriesCanceled || ok && x.Is(ErrRetriesCanceled)
	return m.refused || m.permanent
}

// retryAfter records the first RetryAfterError of the chain.
func (m *marks) retryAfter(e *RetryAfterError) {
	if !m.named && e != nil {
		m.named, m.after, m.cause = true, e.Duration, e.Unwrap()
	}
}

// lastErr is the error to report as Error.LastErr for err, whose marks m
// are: for a Permanent mark (an error whose own Is method matches
// ErrPermanent), the error it wraps; after a RetryAfter, the cause given to
// it; else err, whole.
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
