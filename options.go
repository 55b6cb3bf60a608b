package backoff

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
)

// RetryOption configures the driver's entry points and NewRetrier. Options
// apply in order, a later one replacing an earlier one of its kind, but
// WithRetryable and WithInstrumenter add up. A value an option cannot use
// makes the call fail before the operation runs, with a Cause matching
// ErrInvalidConfiguration that names the option.
type RetryOption func(*options)

// options is what the options set; the driver never writes it.
type options struct {
	backOff, direct      BackOff // direct: backOff if it has no Clone, used as it is
	maxTries             uint
	maxElapsed, maxNamed time.Duration
	notify               Notify
	clock                clock.Clock
	classifiers          []func(error) bool
	obs                  observer       // the instrumenters, if any
	hooks                []Instrumenter // WithInstrumenter's, kept for the next call
	err                  error          // the first invalid setting
	refuse               bool           // a Retrier's: no attempt is started once ctx is done
}

// defaults are shared, read-only, by every call without options.
var defaults = options{maxElapsed: DefaultMaxElapsedTime, maxNamed: DefaultMaxRetryAfter, clock: clock.New()}

var optionsPool = sync.Pool{New: func() any { return new(options) }} // so that options cost no allocation

// build returns the options opts make (release them after) and the first
// invalid setting.
func build(opts []RetryOption) (*options, error) {
	if len(opts) == 0 {
		return &defaults, nil
	}
	o := optionsPool.Get().(*options)
	return o, o.apply(opts)
}

// apply applies opts over the defaults, field by field (a struct copy
// costs a bulk write barrier), and returns the first invalid setting.
func (o *options) apply(opts []RetryOption) error {
	o.backOff, o.direct, o.notify, o.err = nil, nil, nil, nil
	o.maxTries, o.maxElapsed, o.maxNamed, o.clock = 0, defaults.maxElapsed, defaults.maxNamed, defaults.clock
	o.classifiers, o.obs, o.hooks = o.classifiers[:0], nil, o.hooks[:0]
	for _, opt := range opts {
		if opt == nil {
			o.fail("a RetryOption is nil")
			continue
		}
		opt(o)
	}
	switch o.backOff.(type) { // this package's first: they have Clone
	case nil, *ExponentialBackOff, *ConstantBackOff, *ZeroBackOff, *StopBackOff:
	default:
		if _, ok := o.backOff.(interface{ Clone() BackOff }); !ok {
			o.direct = o.backOff
		}
	}
	return o.err
}

func (o *options) release() { // gives an option set from build back
	if o != &defaults {
		clear(o.classifiers[:cap(o.classifiers)])
		clear(o.hooks[:cap(o.hooks)])
		optionsPool.Put(o)
	}
}

func (o *options) fail(format string, args ...any) { // records the first invalid setting
	if o.err == nil {
		o.err = invalid(format, args...)
	}
}

// invalid returns an error that matches ErrInvalidConfiguration and says
// what is wrong.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfiguration}, args...)...)
}

// isNil reports whether v is nil or a nil pointer.
func isNil(v any) bool {
	rv := reflect.ValueOf(v)
	return !rv.IsValid() || rv.Kind() == reflect.Pointer && rv.IsNil()
}

// validate reports why b cannot be used, or nil (nil is the default).
func validate(b BackOff) error {
	switch b.(type) {
	case nil, *ExponentialBackOff, *ConstantBackOff: // a nil one of these says so
	default:
		if isNil(b) {
			return invalid("the BackOff is a nil %T", b)
		}
	}
	if v, ok := b.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

// WithBackOff sets the BackOff of the waits (NewExponentialBackOff by
// default). Each run works on a clone of one that has Clone (see BackOff);
// one without is Reset and used by one run, and a Retrier refuses it. A
// nil b, typed or not, is invalid.
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

// WithMaxTries limits the attempts, not retries: WithMaxTries(1) runs once.
// Reaching it stops the run with ErrExhausted; 0, the default, is no limit.
func WithMaxTries(n uint) RetryOption {
	return func(o *options) { o.maxTries = n }
}

// WithMaxElapsedTime limits the time spent retrying, on the driver's clock
// from the call, to d (DefaultMaxElapsedTime by default; 0 is none). No wait
// that would overrun it is started (the Cause is then ErrMaxElapsedTime),
// and nothing running is interrupted, as by a deadline. A negative d is invalid.
func WithMaxElapsedTime(d time.Duration) RetryOption {
	return func(o *options) { o.maxElapsed = o.duration("WithMaxElapsedTime", d) }
}

// WithMaxRetryAfter bounds the wait an error may name (see
// RetryAfterError), Loop.Override's and httpretry's Retry-After to d
// (DefaultMaxRetryAfter by default): a longer one is not slept, and the run
// stops at once with a Cause matching ErrRetryAfterTooLong. 0 obeys only a
// zero wait; a negative d is invalid.
func WithMaxRetryAfter(d time.Duration) RetryOption {
	return func(o *options) { o.maxNamed = o.duration("WithMaxRetryAfter", d) }
}

// duration returns d, recording it as invalid if it is negative.
func (o *options) duration(name string, d time.Duration) time.Duration {
	if d < 0 {
		o.fail("%s was given a negative duration (%v)", name, d)
	}
	return d
}

// WithNotify sets a Notify, called on the calling goroutine before the
// wait and before the instrumenters; its time counts against the limits,
// and if it cancels the context no attempt follows. A nil n sets none.
func WithNotify(n Notify) RetryOption {
	return func(o *options) { o.notify = n }
}

// WithRetryable adds a classifier: an error none accepts stops the run at
// once with Cause ErrPermanent (with none, every error is retried). It
// runs on the calling goroutine, after the Permanent mark and the context
// are read; its panic goes on to the caller. A nil fn is invalid.
func WithRetryable(fn func(error) bool) RetryOption {
	return func(o *options) {
		if fn == nil {
			o.fail("WithRetryable was given a nil classifier")
			return
		}
		o.classifiers = append(o.classifiers, fn)
	}
}

// WithClock makes the driver wait and keep time on c, such as a
// *clock.Mock a test advances (or run the test in a testing/synctest
// bubble). The context's deadline is read on c too: make it with
// c.WithTimeout. A nil c, typed or not, is invalid.
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

// observer is told of each attempt: the Instrumenters of WithInstrumenter
// (see instrument.go). after reports an attempt that returned err after
// lastErr, with the wait after it or the cause that ends the run.
type observer interface {
	before(ctx context.Context, p progress) context.Context
	after(ctx context.Context, p progress, err, lastErr error, next time.Duration, cause error)
}
