package backoff

import (
	"sync"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/internal/typednil"
)

// RetryOption configures Retry, RetryCtx, RetryError, RetryErrorCtx, Do,
// DoErr and NewRetrier (and so a retry stage of package policy, which takes
// the same options). Options are applied in order; a later option replaces an
// earlier one of the same kind, except WithRetryable and WithInstrumenter,
// which add to each other. An option given a value it cannot use makes the
// call fail before the operation runs, with an *Error whose Cause matches
// ErrInvalidConfiguration and names the option.
type RetryOption func(*options)

// options is what the options set. The driver reads it and never writes it
// once the options are applied.
type options struct {
	backOff       BackOff // nil: a fresh NewExponentialBackOff per run
	direct        BackOff // backOff, if it does not implement Cloner: runs use it as it is
	maxTries      uint
	maxElapsed    time.Duration
	notify        Notify
	clock         clock.Clock
	classifiers   []func(error) bool
	instrumenters []Instrumenter
	err           error // the first invalid setting
}

// settings makes the errors of the settings the driver cannot use.
const settings = setting.Package("")

// defaults are Retry's: the default ExponentialBackOff, no attempt
// limit, DefaultMaxElapsedTime. Every call that passes no option shares
// them, read-only.
var defaults = options{maxElapsed: DefaultMaxElapsedTime, clock: setting.RealClock}

// optionsPool recycles option sets, so that applying options does not
// allocate on every call.
var optionsPool = sync.Pool{New: func() any { return new(options) }}

// build returns the options opts make over the defaults, and the first
// invalid setting among them, from a pool: release the result when the run
// is over.
func build(opts []RetryOption) (*options, error) {
	if len(opts) == 0 {
		return &defaults, nil
	}
	o := optionsPool.Get().(*options)
	return o, o.apply(opts)
}

// apply applies opts over the defaults to o, reusing the slices o holds,
// and returns the first invalid setting.
func (o *options) apply(opts []RetryOption) error {
	// The defaults, field by field: a copy of the whole struct into a
	// pooled object costs a bulk write barrier while the collector runs.
	o.backOff, o.direct, o.notify, o.err = nil, nil, nil, nil
	o.maxTries, o.maxElapsed, o.clock = defaults.maxTries, defaults.maxElapsed, defaults.clock
	o.classifiers, o.instrumenters = o.classifiers[:0], o.instrumenters[:0]
	for _, opt := range opts {
		if opt == nil {
			o.fail("a RetryOption is nil")
			continue
		}
		opt(o)
	}
	o.direct = direct(o.backOff)
	return o.err
}

// release gives an option set from build back for another call.
func (o *options) release() {
	if o != &defaults {
		clear(o.classifiers[:cap(o.classifiers)])
		clear(o.instrumenters[:cap(o.instrumenters)])
		optionsPool.Put(o)
	}
}

// fail records the first invalid setting.
func (o *options) fail(format string, args ...any) {
	settings.Fail(&o.err, format, args...)
}

// direct returns b if runs use it as it is, because it does not implement
// Cloner, else nil. This package's BackOffs are looked up by their type
// first, which costs less than the interface's.
func direct(b BackOff) BackOff {
	switch b.(type) {
	case nil, *ExponentialBackOff, *ConstantBackOff, *ZeroBackOff, *StopBackOff, *contextBackOff:
		return nil
	case Cloner:
		return nil
	}
	return b
}

// validate reports why b cannot be used, or nil. nil is the default
// BackOff. A BackOff of this package checks its own fields; one of another
// package is checked for a typed nil, the one mistake the driver can see.
func validate(b BackOff) error {
	switch b := b.(type) {
	case nil:
		return nil
	case *ExponentialBackOff:
		if b != nil && b.valid() {
			return nil // the common case, at the cost of a few comparisons
		}
		return b.Validate()
	case *ConstantBackOff:
		return b.Validate()
	case *contextBackOff:
		if b.b == nil {
			return settings.Invalid("WithContext was given a nil BackOff")
		}
		return validate(b.b)
	}
	if typednil.Is(b) {
		return settings.Invalid("the BackOff is a nil %T", b)
	}
	return nil
}

// WithBackOff sets the BackOff that schedules the waits between attempts.
// The default is NewExponentialBackOff. A BackOff that implements Cloner,
// as every BackOff of this package does, may be shared by any number of
// calls: each run works on a clone of its own, made at its first retry. A
// BackOff without Clone is Reset before the first attempt and used by this
// run only. A nil b, typed or not, is reported as ErrInvalidConfiguration.
func WithBackOff(b BackOff) RetryOption {
	return func(o *options) {
		switch err := validate(b); {
		case b == nil:
			o.fail("WithBackOff was given a nil BackOff")
		case err != nil && o.err == nil:
			o.err = err
		}
		o.backOff = b
	}
}

// WithMaxTries limits the total number of attempts, not retries:
// WithMaxTries(1) runs the operation once and does not retry. When the limit
// is reached, Retry returns an *Error with Cause ErrExhausted. The default,
// 0, means no limit.
func WithMaxTries(n uint) RetryOption {
	return func(o *options) { o.maxTries = n }
}

// WithMaxElapsedTime limits the total time spent retrying, measured on the
// driver's clock from when Retry is called. When the limit is reached, Retry
// returns a *Error with Cause ErrMaxElapsedTime.
//
// The limit is checked only between attempts: it gates whether another
// attempt is scheduled. It does not interrupt an operation that is already
// running, nor a backoff wait already in progress, and Retry stops early
// rather than starting a backoff that would overrun the limit. Because it
// counts from the call, a first attempt that itself runs past the limit is
// not retried.
//
// This differs from bounding Retry with a context deadline (e.g.
// context.WithTimeout): a context deadline is reactive — it interrupts the
// backoff wait and, if the operation observes the context, can abort an
// in-flight attempt — and Retry reports it with Cause
// context.DeadlineExceeded.
//
// The default is DefaultMaxElapsedTime (15 minutes), so both limits are
// active at once unless overridden. Pass 0 to disable the elapsed-time
// limit and rely on the context (or WithMaxTries) instead; a call without
// it reads no clock until an attempt fails. A negative d is reported as
// ErrInvalidConfiguration.
func WithMaxElapsedTime(d time.Duration) RetryOption {
	return func(o *options) {
		if d < 0 {
			o.fail("WithMaxElapsedTime was given a negative duration (%v)", d)
		}
		o.maxElapsed = d
	}
}

// Notify is called after a failed attempt that will be retried, with the
// operation error, exactly as the operation returned it, and the backoff
// duration before the next attempt. It is called once per retry, not for
// the final error that stops Retry (a permanent error, an exhausted limit,
// or a cancelled context), and before the instrumenters hear of the
// retry.
type Notify func(error, time.Duration)

// WithNotify sets a function called after each failed attempt that will be
// retried. See Notify for exactly when it fires. It runs on the goroutine
// that called Retry, before the wait; if it cancels the context, no further
// attempt is made, and the time it takes counts against the limits. A nil n
// sets no function.
func WithNotify(n Notify) RetryOption {
	return func(o *options) { o.notify = n }
}

// WithRetryable sets a classifier: an error it rejects (returns false for)
// stops the driver at once, with Cause ErrPermanent and LastErr the error.
// With no classifier every error is retried. A Permanent error is stopped
// before the classifier is asked, and a cancelled context is reported as
// such whatever the classifier says.
//
// Several classifiers add up: an error is retried if any of them accepts
// it. A classifier runs on the goroutine that called the driver. A nil fn
// is reported as ErrInvalidConfiguration.
func WithRetryable(fn func(error) bool) RetryOption {
	return func(o *options) {
		if fn == nil {
			o.fail("WithRetryable was given a nil classifier")
			return
		}
		o.classifiers = append(o.classifiers, fn)
	}
}

// WithClock makes the driver's waits and its elapsed-time accounting use c
// instead of the time package. Pass a *clock.Mock in a test and advance it
// to release each wait; or run the test inside a testing/synctest bubble
// with the default clock, where every wait is virtual. A nil c, typed or
// not, is reported as ErrInvalidConfiguration.
//
// The driver reads the context's deadline on c as well, to decide whether a
// wait would overrun it; give a test on a mock clock its deadline with
// c.WithTimeout or c.WithDeadline, or bound it with WithMaxElapsedTime,
// WithMaxTries or a cancellation.
func WithClock(c clock.Clock) RetryOption {
	return func(o *options) { settings.Clock(&o.clock, &o.err, c) }
}

// WithInstrumenter adds an Instrumenter. Several may be added; they are
// called in the order given, each BeforeAttempt receiving the context the
// previous one returned. A nil i, typed or not, is reported as
// ErrInvalidConfiguration.
func WithInstrumenter(i Instrumenter) RetryOption {
	return func(o *options) {
		if i == nil || typednil.Is(i) {
			o.fail("WithInstrumenter was given a nil Instrumenter")
			return
		}
		o.instrumenters = append(o.instrumenters, i)
	}
}
