package backoff

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// This file is the driver: the entry points, then the loop (attempt,
// decide, wait) and its steps. To make a driver of your own, copy it with
// options.go (its options) into your package: the two reach nothing else
// unexported and import no internal package. Qualify this package's names
// they use (backoff.Error, backoff.BackOff, the sentinels), and call the
// copy with its own options.

// Operation is the function Retry calls, at least once. Return a Permanent
// error to stop retrying, or a RetryAfterError to name the next wait.
type Operation[T any] func() (T, error)

// Retry is RetryCtx with context.Background(): it is bounded by
// WithMaxElapsedTime (15 minutes by default), WithMaxTries and the BackOff.
func Retry[T any](operation Operation[T], opts ...RetryOption) (T, error) {
	return RetryCtx(context.Background(), operation, opts...)
}

// RetryCtx runs the operation until it succeeds, returns a Permanent error,
// or a limit ends the run: at least once, even when ctx is done (Do never
// starts its function then). It returns the last result, and nil or an
// *Error whose Cause says why it stopped and LastErr the last error.
//
// ctx's cancellation stops the run and a wait. No wait is started that
// leaves less time before ctx's deadline than the last attempt took, nor
// any attempt past it: the Cause is then context.DeadlineExceeded. Whether
// ctx is done is decided by ctx, never by the error. An error may name the
// next wait (see RetryAfterError). A first success allocates nothing.
func RetryCtx[T any](ctx context.Context, operation Operation[T], opts ...RetryOption) (T, error) {
	var res T
	if operation == nil {
		return res, invalidCall("RetryCtx was given a nil operation")
	}
	err := retry(ctx, opts, nil, func(context.Context, Attempt) error {
		var err error
		res, err = operation()
		return err
	})
	return res, err
}

// WithoutWaits returns a copy of ctx under which the driver and a Loop wait
// zero, while attempts, classifiers and limits run as they would: for a
// test against a real server over the network, across whose I/O
// testing/synctest cannot advance time (else prefer synctest, which keeps
// the waits). It panics if ctx is nil, as context.WithValue does.
func WithoutWaits(ctx context.Context) context.Context {
	return context.WithValue(ctx, noWaits{}, true)
}

type noWaits struct{} // the context key of WithoutWaits

// invalidCall returns the *Error of a call the driver cannot make.
//
//go:noinline
func invalidCall(msg string) error {
	return &Error{Cause: invalid("%s", msg)}
}

// retry is the loop: it runs op until it succeeds or the options say stop,
// and returns nil or the *Error that says why. Its options are o, built
// once (a Retrier's), or else those opts make, built for the call and
// given back after it: the one setup of every entry point. A turn (an
// attempt and its decision) is out of line: a goroutine parked in a wait
// holds less.
func retry(ctx context.Context, opts []RetryOption, o *options, op func(context.Context, Attempt) error) error {
	if ctx == nil {
		return invalidCall("the driver was given a nil context")
	}
	built := o == nil
	if built {
		o, _ = build(opts)
	}
	p := progress{o: o}
	err := o.err
	if err != nil {
		err = &Error{Cause: err}
	} else if dl, ok := ctx.Deadline(); ok || o.maxElapsed > 0 || o.direct != nil {
		p.begin(dl, ok)
	}
	for err == nil {
		var delay time.Duration
		if delay, err = p.turn(ctx, op); delay == over {
			break
		}
		if delay > 0 && ctx.Err() == nil { // the wait, here: a parked goroutine holds one frame less
			t := o.clock.Timer(delay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
			}
		}
		if delay > 0 && ctx.Err() != nil {
			err = p.interrupted(ctx)
		}
		p.a.LastDelay = delay
	}
	if built {
		o.release()
	}
	return err
}

// refusedByContext is the refusal of an attempt that was not started
// because its context was done. It wraps the context's cause.
type refusedByContext struct{ ctx context.Context }

func (r refusedByContext) Error() string        { return context.Cause(r.ctx).Error() }
func (r refusedByContext) Unwrap() error        { return context.Cause(r.ctx) }
func (r refusedByContext) Is(target error) bool { return target == ErrRefused }

const over time.Duration = -1 // turn's wait when the run is over

// turn makes an attempt and returns the next wait, or over and the result.
func (p *progress) turn(ctx context.Context, op func(context.Context, Attempt) error) (time.Duration, error) {
	p.a.Number++
	if p.end != 0 {
		p.a.Left = max(p.end-p.mark, 1)
	}
	actx := ctx
	if p.o.obs != nil {
		actx = p.observe(actx, true, nil, nil, 0, nil)
	}
	var err error
	if p.o.refuse && actx.Err() != nil {
		err = refusedByContext{actx}
	} else { // the facts field by field: a copy of p.a as a whole stalls on the stores just made
		err = op(actx, Attempt{Number: p.a.Number, Left: p.a.Left, LastErr: p.a.LastErr, LastDelay: p.a.LastDelay})
	}
	if err == nil {
		if p.o.obs != nil {
			p.observe(actx, false, nil, p.a.LastErr, 0, nil)
		}
		return over, nil
	}
	return p.failed(ctx, actx, err)
}

// failed returns the wait after an attempt that returned err on actx, or
// over and the *Error that ends the run, telling Notify and the observer.
func (p *progress) failed(ctx, actx context.Context, err error) (time.Duration, error) {
	prev := p.a.LastErr
	delay, cause := p.decide(ctx, err)
	if cause == nil && (p.o.notify != nil || p.o.obs != nil) { // their time counts
		if p.o.notify != nil {
			p.o.notify(err, delay)
		}
		if p.o.obs != nil {
			p.observe(actx, false, err, prev, delay, nil)
		}
		p.reported = true
		cause = p.limit(ctx, delay)
	}
	if cause == nil && ctx.Err() != nil {
		cause = context.Cause(ctx)
	}
	if cause != nil {
		return over, p.stop(actx, cause, err, prev)
	}
	p.mark = p.seen + delay // when the next attempt starts
	if delay > 0 && p.o.obs != nil {
		p.waiting = &waiting{actx, err, prev}
	}
	return delay, nil
}

// interrupted returns the *Error of a run whose context ended in a wait.
func (p *progress) interrupted(ctx context.Context) error {
	if w := p.waiting; w != nil {
		return p.stop(w.ctx, context.Cause(ctx), w.err, w.lastErr)
	}
	return p.stop(ctx, context.Cause(ctx), nil, nil)
}

// progress is where a run stands: a, the facts of its attempt. Readings
// (see now): start, of the run's clock (at the call or first failure);
// mark, the attempt's; seen, limit's; end, of the first limit in time.
type progress struct {
	o                          *options
	b                          BackOff // made at the first retry
	a                          Attempt
	start, mark, seen, end     time.Duration
	waiting                    *waiting
	started, refused, reported bool // start is set; the attempt was refused; its failure reported
}

// waiting is an instrumented run's last attempt, during the wait after it.
type waiting struct {
	ctx          context.Context
	err, lastErr error
}

// begin starts the run's clock, if needed, notes where the first limit
// in time ends it (the time budget, ctx's deadline), and Resets a BackOff
// used as is.
func (p *progress) begin(deadline time.Time, ok bool) {
	if p.mark = p.now(); p.o.maxElapsed > 0 {
		p.start, p.started = p.mark, true
		p.end = p.mark + p.o.maxElapsed
	}
	if ok && (p.end == 0 || deadline.Sub(epoch) < p.end) {
		p.end = deadline.Sub(epoch)
	}
	if b := p.o.direct; b != nil {
		b.Reset()
	}
}

// decide returns the wait after an attempt that returned err, or why the
// run stops: the context, what the error says, the classifiers, the limits.
func (p *progress) decide(ctx context.Context, err error) (time.Duration, error) {
	if !p.started { // the run's clock starts at its first failure
		p.start, p.started = p.now(), true
	}
	m := MarksOf(err)
	p.refused, p.reported = m.Refused, false
	done := ctx.Err() != nil
	// A refused attempt did not run; one the caller's own context cut short
	// leaves the real error before it.
	if !m.Refused && !(done && p.a.LastErr != nil && errors.Is(err, ctx.Err())) {
		p.a.LastErr = m.Last
	}
	switch {
	case done: // the context decides, whatever the error says
		return 0, context.Cause(ctx)
	case m.Refused:
		return 0, err
	case m.Permanent, !m.CancelAll && !p.retryable(err):
		return 0, ErrPermanent
	case m.CancelAll:
		return 0, ErrRetriesCanceled
	}
	return p.next(ctx, m.Wait, m.Named)
}

// retryable reports whether the classifiers (all errors, with none)
// accept err.
func (p *progress) retryable(err error) bool {
	for _, fn := range p.o.classifiers {
		if fn(err) {
			return true
		}
	}
	return len(p.o.classifiers) == 0
}

// next returns the next wait, or the limit it would overrun (the Loop's
// too): the attempt budget, the BackOff (Stop ends the run), then a named
// wait, within WithMaxRetryAfter, replaces the BackOff's, which starts over.
func (p *progress) next(ctx context.Context, named time.Duration, isNamed bool) (time.Duration, error) {
	if max := p.o.maxTries; max > 0 && uint(p.a.Number) >= max {
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

// backOff returns the run's BackOff: a clone of the one given, or it.
func (p *progress) backOff() BackOff {
	if p.b == nil {
		switch b := p.o.backOff.(type) {
		case nil:
			p.b = NewExponentialBackOff()
		case interface{ Clone() BackOff }:
			p.b = b.Clone()
			p.b.Reset()
		default:
			p.b = b
		}
	}
	return p.b
}

// limit reports the limit a wait of delay would overrun: the time budget,
// or ctx's deadline, which must leave as much time as the last attempt took.
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

// stop returns the *Error of a run that stops after an attempt (err).
func (p *progress) stop(ctx context.Context, cause, err, lastErr error) error {
	e := &Error{LastErr: p.a.LastErr, Cause: cause, Attempts: p.a.Number, Elapsed: p.elapsed()}
	if p.refused {
		e.Attempts-- // the refused attempt did not run
	}
	if p.o.obs != nil {
		p.observe(ctx, false, err, lastErr, 0, cause)
	}
	return e
}

// elapsed is the time since the run's clock started, or 0.
func (p *progress) elapsed() time.Duration {
	if !p.started {
		return 0
	}
	return p.now() - p.start
}

// observe tells the observer of the attempt, before it (and returns its
// context) or after, out of line: its copy of p would grow the frames of
// the loop, and so the stack a parked goroutine keeps.
//
//go:noinline
func (p *progress) observe(ctx context.Context, before bool, err, lastErr error, next time.Duration, cause error) context.Context {
	if before {
		return p.o.obs.before(ctx, *p)
	}
	p.o.obs.after(ctx, *p, err, lastErr, next, cause)
	return ctx
}

var epoch = time.Now() // the origin of the readings of the run's clock

// now reads the run's clock: monotonic on the real clock.
func (p *progress) now() time.Duration { return p.o.clock.Since(epoch) }
