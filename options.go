package backoff

import (
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
)

// RetryOption configures Retry, RetryCtx, RetryError, RetryErrorCtx, Do,
// DoErr and NewRetrier (and so a retry stage of package policy, which takes
// the same options). Options are applied in order; a later option replaces
// an earlier one of the same kind, except WithRetryable and
// WithInstrumenter, which add to each other. An option given a value it
// cannot use makes the call fail before the operation runs, with an *Error
// whose Cause matches ErrInvalidConfiguration and names the option.
//
// This file travels with retry.go: a copy of the driver takes both, and
// its callers then use the copy's options.
type RetryOption func(*options)

// options is what the options set. The driver reads it and never writes
// it once the options are applied.
type options struct {
	backOff       BackOff // nil: a fresh NewExponentialBackOff per run
	direct        BackOff // backOff, if it has no Clone: runs use it as it is
	maxTries      uint
	maxElapsed    time.Duration
	maxRetryAfter time.Duration
	notify        Notify
	clock         clock.Clock
	classifiers   []func(error) bool
	instrumenters []Instrumenter
	err           error // the first invalid setting
}

// defaults are Retry's. Every call that passes no option shares them,
// read-only.
var defaults = options{maxElapsed: DefaultMaxElapsedTime, maxRetryAfter: DefaultMaxRetryAfter, clock: clock.New()}

// optionsPool recycles option sets, so that applying options does not
// allocate on every call.
var optionsPool = sync.Pool{New: func() any { return new(options) }}

// build returns the options opts make over the defaults, from a pool
// (release the result when the run is over), and the first invalid setting.
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
	// Field by field: a copy of the whole struct into a pooled object costs
	// a bulk write barrier while the collector runs.
	o.backOff, o.direct, o.notify, o.err = nil, nil, nil, nil
	o.maxTries, o.maxElapsed, o.clock = defaults.maxTries, defaults.maxElapsed, defaults.clock
	o.maxRetryAfter = defaults.maxRetryAfter
	o.classifiers, o.instrumenters = o.classifiers[:0], o.instrumenters[:0]
	for _, opt := range opts {
		if opt == nil {
			o.fail("a RetryOption is nil")
			continue
		}
		opt(o)
	}
	if _, ok := o.backOff.(cloner); !ok {
		o.direct = o.backOff
	}
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
	if o.err == nil {
		o.err = invalid(format, args...)
	}
}

// invalid returns the error of a setting the driver cannot use: it
// matches ErrInvalidConfiguration and says what is wrong.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfiguration}, args...)...)
}

// isNil reports whether v is nil or holds a nil pointer, map, slice,
// function or channel.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// cloner is a BackOff that gives each user a copy of its own; see BackOff.
type cloner interface {
	BackOff
	Clone() BackOff
}

// validate reports why b cannot be used, or nil; nil is the default
// BackOff. A BackOff with a Validate method, as this package's have,
// checks itself; of another, only a nil pointer can be seen.
func validate(b BackOff) error {
	switch v := b.(type) {
	case nil:
		return nil
	case *ExponentialBackOff:
		return v.Validate()
	case *ConstantBackOff:
		return v.Validate()
	}
	if isNil(b) {
		return invalid("the BackOff is a nil %T", b)
	}
	if v, ok := b.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

// WithBackOff sets the BackOff that schedules the waits between attempts.
// The default is NewExponentialBackOff. A BackOff with a Clone method (see
// BackOff), as every BackOff of this package has, may be shared by any
// number of calls: each run works on a clone of its own, made at its first
// retry. A BackOff without Clone is Reset before the first attempt and
// used by this run only; a Retrier, which is shared, refuses it. A nil b,
// typed or not, is reported as ErrInvalidConfiguration.
func WithBackOff(b BackOff) RetryOption {
	return func(o *options) {
		if b == nil {
			o.fail("WithBackOff was given a nil BackOff")
		} else if err := validate(b); err != nil && o.err == nil {
			o.err = err
		}
		o.backOff = b
	}
}

// WithMaxTries limits the total number of attempts, not retries:
// WithMaxTries(1) runs the operation once and does not retry. When the
// limit is reached, the Cause is ErrExhausted. The default, 0, means no
// limit.
func WithMaxTries(n uint) RetryOption {
	return func(o *options) { o.maxTries = n }
}

// WithMaxElapsedTime limits the total time spent retrying, measured on the
// driver's clock from the call, to d; the default is
// DefaultMaxElapsedTime, and 0 means no limit. It is checked between
// attempts: no wait is started that would overrun it, the Cause is then
// ErrMaxElapsedTime, and neither a running attempt nor a wait is
// interrupted. A context deadline, by contrast, interrupts the wait (and
// an attempt that observes it), and is reported as
// context.DeadlineExceeded. A negative d is reported as
// ErrInvalidConfiguration.
func WithMaxElapsedTime(d time.Duration) RetryOption {
	return func(o *options) {
		if d < 0 {
			o.fail("WithMaxElapsedTime was given a negative duration (%v)", d)
		}
		o.maxElapsed = d
	}
}

// WithMaxRetryAfter bounds the wait an error may name (see RetryAfterError)
// to d; the default is DefaultMaxRetryAfter, 30 seconds. A named wait
// longer than d is not slept: the run stops at once with a Cause matching
// ErrRetryAfterTooLong, and LastErr the error that named it, so that no
// server can hold the caller for as long as it likes. 0 obeys only a wait
// of zero. A negative d is reported as ErrInvalidConfiguration. It bounds
// Loop.Override too, and httpretry's Retry-After.
func WithMaxRetryAfter(d time.Duration) RetryOption {
	return func(o *options) {
		if d < 0 {
			o.fail("WithMaxRetryAfter was given a negative duration (%v)", d)
		}
		o.maxRetryAfter = d
	}
}

// Notify is called after a failed attempt that will be retried, with the
// operation's error as it returned it and the wait before the next
// attempt; never for the failure that ends the run.
type Notify func(error, time.Duration)

// WithNotify sets a function called after each failed attempt that will be
// retried, on the calling goroutine, before the wait and before the
// instrumenters hear of the retry. If it cancels the context no further
// attempt is made; the time it takes counts against the limits. A nil n
// sets no function.
func WithNotify(n Notify) RetryOption {
	return func(o *options) { o.notify = n }
}

// WithRetryable sets a classifier: an error it rejects (returns false for)
// stops the driver at once, with Cause ErrPermanent and LastErr the error.
// With no classifier every error is retried. A Permanent error is stopped
// before the classifier is asked, and a done context is reported as such
// whatever the classifier says. Several classifiers add up: an error is
// retried if any of them accepts it. A classifier runs on the goroutine
// that called the driver; a panic in it goes on to the caller. A nil fn is
// reported as ErrInvalidConfiguration.
func WithRetryable(fn func(error) bool) RetryOption {
	return func(o *options) {
		if fn == nil {
			o.fail("WithRetryable was given a nil classifier")
			return
		}
		o.classifiers = append(o.classifiers, fn)
	}
}

// WithClock makes the driver's waits and its time accounting use c
// instead of the time package: pass a *clock.Mock in a test and advance
// it, or run the test inside a testing/synctest bubble with the default
// clock. The driver reads the context's deadline on c too: give a test on
// a mock clock its deadline with c.WithTimeout. A nil c, typed or not, is
// reported as ErrInvalidConfiguration.
func WithClock(c clock.Clock) RetryOption {
	return func(o *options) {
		switch {
		case c == nil:
			o.fail("WithClock was given a nil clock")
		case isNil(c):
			o.fail("WithClock was given a nil %T", c)
		default:
			o.clock = c
		}
	}
}

// WithInstrumenter adds an Instrumenter. Several may be added; they are
// called in the order given, each BeforeAttempt receiving the context the
// previous one returned. A nil i, typed or not, is reported as
// ErrInvalidConfiguration.
func WithInstrumenter(i Instrumenter) RetryOption {
	return func(o *options) {
		if isNil(i) {
			o.fail("WithInstrumenter was given a nil Instrumenter")
			return
		}
		o.instrumenters = append(o.instrumenters, i)
	}
}
