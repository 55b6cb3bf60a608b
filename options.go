package backoff

import (
	"log/slog"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
)

// DefaultMaxElapsedTime sets a default limit for the total retry duration.
const DefaultMaxElapsedTime = 15 * time.Minute

// RetryOption configures the behavior of Retry, RetryCtx, RetryError,
// RetryErrorCtx, Do and NewLoop. Options are applied in order; a later
// option replaces an earlier one of the same kind, except WithRetryable,
// RetryIf, RetryIfType and WithInstrumenter, which add to each other.
type RetryOption func(*retryOptions)

// retryOptions is what the options set. The driver reads it and never
// writes it once the options are applied.
type retryOptions struct {
	backOff        BackOff
	maxTries       uint
	maxElapsed     time.Duration
	notify         Notify
	clock          clock.Clock // nil: the time package
	classifiers    []func(error) bool
	retryIf        []error
	instrumenters  []Instrumenter
	name           string
	logger         *slog.Logger
	recoverPanics  bool
	attemptTimeout time.Duration
	err            error // the first invalid setting
}

// defaultOptions is shared, read-only, by every call that passes no option.
var defaultOptions = retryOptions{maxElapsed: DefaultMaxElapsedTime}

// optionsPool recycles option sets, so that applying options does not
// allocate on every call.
var optionsPool sync.Pool

// build applies opts to o, a recycled option set, and returns o. Release it
// with release when the call is over.
func (o *retryOptions) build(opts []RetryOption) *retryOptions {
	*o = retryOptions{
		maxElapsed:    DefaultMaxElapsedTime,
		classifiers:   o.classifiers[:0],
		retryIf:       o.retryIf[:0],
		instrumenters: o.instrumenters[:0],
	}
	for _, opt := range opts {
		if opt == nil {
			o.fail("a RetryOption is nil")
			continue
		}
		opt(o)
	}
	return o
}

// release returns an option set built by build to the pool. What it
// still references is dropped when it is next built, or when the pool is
// emptied by the garbage collector.
func (o *retryOptions) release() { optionsPool.Put(o) }

// fail records the first invalid setting.
func (o *retryOptions) fail(format string, args ...any) {
	if o.err == nil {
		o.err = invalidf(format, args...)
	}
}

// callOnly names an option that was set and that only a call of an
// operation uses, or returns "".
func (o *retryOptions) callOnly() string {
	switch {
	case o.notify != nil:
		return "WithNotify"
	case len(o.classifiers) > 0 || len(o.retryIf) > 0:
		return "A classifier (WithRetryable, RetryIf, RetryIfType)"
	case len(o.instrumenters) > 0:
		return "WithInstrumenter"
	case o.logger != nil:
		return "WithLogger"
	case o.name != "":
		return "WithName"
	case o.recoverPanics:
		return "WithPanicRecovery"
	case o.attemptTimeout > 0:
		return "WithAttemptTimeout"
	}
	return ""
}

// validate reports the first invalid setting, including the policy's own.
func (o *retryOptions) validate() error {
	if o.err != nil {
		return o.err
	}
	if o.backOff != nil {
		return validatePolicy(o.backOff)
	}
	return nil
}

// WithBackOff configures the backoff policy used between attempts. The
// default is NewExponentialBackOff.
//
// Retry calls Reset on the policy before the first attempt, so a previously
// used policy may be passed. A BackOff is stateful and not safe for
// concurrent use: give each concurrent Retry call its own BackOff rather than
// sharing one. The exception is this package's *ExponentialBackOff and
// *ConstantBackOff: the driver keeps their state in a copy of its own, so one
// of them may be shared. A nil b is reported as ErrInvalidConfiguration.
func WithBackOff(b BackOff) RetryOption {
	return func(o *retryOptions) {
		if b == nil {
			o.fail("WithBackOff was given a nil BackOff")
		}
		o.backOff = b
	}
}

// WithMaxTries limits the total number of attempts, not retries:
// WithMaxTries(1) runs the operation once and does not retry. When the limit
// is reached, Retry returns an *Error with Cause ErrExhausted. The default,
// 0, means no limit.
func WithMaxTries(n uint) RetryOption {
	return func(o *retryOptions) { o.maxTries = n }
}

// WithMaxElapsedTime limits the total wall-clock time spent retrying,
// measured from when Retry is called. When the limit is reached, Retry
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
// active at once unless overridden. Pass 0 to disable the elapsed-time limit
// and rely on the context (or WithMaxTries) instead. A negative d is
// reported as ErrInvalidConfiguration.
func WithMaxElapsedTime(d time.Duration) RetryOption {
	return func(o *retryOptions) {
		if d < 0 {
			o.fail("WithMaxElapsedTime was given a negative duration (%v)", d)
		}
		o.maxElapsed = d
	}
}

// Notify is called after a failed attempt that will be retried, with the
// operation error and the backoff duration before the next attempt. It is
// called once per retry, not for the final error that stops Retry (a
// permanent error, an exhausted limit, or a cancelled context).
type Notify func(error, time.Duration)

// WithNotify sets a function called after each failed attempt that will be
// retried. See Notify for exactly when it fires. It runs on the goroutine
// that called Retry, before the wait; if it cancels the context, no further
// attempt is made. A nil n sets no function.
func WithNotify(n Notify) RetryOption {
	return func(o *retryOptions) { o.notify = n }
}

// WithClock makes the driver's waits and its elapsed-time accounting use c
// instead of the time package. Pass a *clock.Mock in a test and advance it
// to release each wait. A nil c is reported as ErrInvalidConfiguration.
//
// The driver reads the context's deadline on c as well, to decide whether a
// wait would overrun it; give a test on a mock clock its deadline with
// c.WithTimeout or c.WithDeadline, or bound it with WithMaxElapsedTime,
// WithMaxTries or a cancellation.
func WithClock(c clock.Clock) RetryOption {
	return func(o *retryOptions) {
		if c == nil {
			o.fail("WithClock was given a nil clock")
		}
		o.clock = c
	}
}

// WithName names the operation, for logs and instrumentation; see State.Name
// and WithLogger.
func WithName(name string) RetryOption {
	return func(o *retryOptions) { o.name = name }
}

// WithAttemptTimeout gives each attempt made by Do its own deadline, d after
// the attempt starts, through the context Do passes to fn. The other entry
// points pass their operation no context, so they report the option as
// ErrInvalidConfiguration. An attempt that
// runs out of time is an ordinary failure, retried like any other, because
// the caller's context is still alive. 0, the default, sets no per-attempt
// deadline; a negative d is reported as ErrInvalidConfiguration. The
// attempt's context is cancelled when fn returns, so a result that keeps
// using it (an HTTP response body, say) must be consumed inside fn.
func WithAttemptTimeout(d time.Duration) RetryOption {
	return func(o *retryOptions) {
		if d < 0 {
			o.fail("WithAttemptTimeout was given a negative duration (%v)", d)
		}
		o.attemptTimeout = d
	}
}
