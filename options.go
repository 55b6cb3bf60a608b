package backoff

import (
	"log/slog"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/internal/typednil"
)

// DefaultMaxElapsedTime sets a default limit for the total retry duration.
const DefaultMaxElapsedTime = 15 * time.Minute

// RetryOption configures the behavior of Retry, RetryCtx, RetryError,
// RetryErrorCtx, Do, DoErr, a retry stage (WithRetry) and NewLoop. Options
// are applied in order; a later option replaces an earlier one of the same
// kind, except WithRetryable, RetryIf, RetryIfType and WithInstrumenter,
// which add to each other.
type RetryOption func(*retryOptions)

// retryOptions is what the options set. The driver reads it and never
// writes it once the options are applied.
type retryOptions struct {
	backOff        BackOff
	direct         BackOff // backOff, if runs use it as it is (see BackOff)
	maxTries       uint
	maxElapsed     time.Duration
	maxRetryTime   time.Duration
	notify         Notify
	clock          clock.Clock // nil: the time package
	classifiers    []func(error) bool
	retryIf        []error
	instrumenters  []Instrumenter
	name           string
	logger         *slog.Logger
	recoverPanics  bool
	attemptTimeout time.Duration
	attemptState   bool
	result         any   // a *resultCheck[T], from CheckResult
	err            error // the first invalid setting
}

// defaultOptions is shared, read-only, by every call of Retry, RetryCtx,
// RetryError, RetryErrorCtx, Do and DoErr that passes no option: seed 003's
// defaults.
var defaultOptions = retryOptions{maxElapsed: DefaultMaxElapsedTime}

// optionsPool recycles option sets, so that applying options does not
// allocate on every call.
var optionsPool sync.Pool

// getOptions returns the option set of a call given opts: the shared
// defaults when there is none, else a recycled set with opts applied over
// them, which release returns to the pool.
func getOptions(opts []RetryOption) *retryOptions {
	if len(opts) == 0 {
		return &defaultOptions
	}
	o, _ := optionsPool.Get().(*retryOptions)
	if o == nil {
		o = new(retryOptions)
	}
	return o.build(&defaultOptions, opts)
}

// build applies opts over base to o and returns o. The slices o already
// holds are reused.
func (o *retryOptions) build(base *retryOptions, opts []RetryOption) *retryOptions {
	classifiers, retryIf, instrumenters := o.classifiers[:0], o.retryIf[:0], o.instrumenters[:0]
	*o = *base
	o.classifiers, o.retryIf, o.instrumenters = classifiers, retryIf, instrumenters
	if len(base.classifiers)+len(base.retryIf)+len(base.instrumenters) > 0 {
		o.classifiers = append(o.classifiers, base.classifiers...)
		o.retryIf = append(o.retryIf, base.retryIf...)
		o.instrumenters = append(o.instrumenters, base.instrumenters...)
	}
	for _, opt := range opts {
		if opt == nil {
			o.fail("a RetryOption is nil")
			continue
		}
		opt(o)
	}
	o.direct = direct(o.backOff)
	return o
}

// release returns a set from getOptions to the pool; it ignores nil and
// the shared defaults. What it still
// references is dropped when it is next built, or when the pool is emptied
// by the garbage collector.
func (o *retryOptions) release() {
	if o != nil && o != &defaultOptions {
		optionsPool.Put(o)
	}
}

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
	case o.attemptState:
		return "WithAttemptState"
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
	case o.result != nil:
		return "CheckResult"
	}
	return ""
}

// contextOnly names an option that was set and that only an operation
// receiving the attempt's context can use, or returns "".
func (o *retryOptions) contextOnly() string {
	switch {
	case o.attemptTimeout > 0:
		return "WithAttemptTimeout"
	case o.attemptState:
		return "WithAttemptState"
	}
	return ""
}

// validate reports the first invalid setting, including the BackOff's own.
func (o *retryOptions) validate() error {
	if o.err != nil {
		return o.err
	}
	if o.backOff != nil {
		return validateBackOff(o.backOff)
	}
	return nil
}

// WithBackOff sets the BackOff that schedules the waits between attempts.
// The default is NewExponentialBackOff; a retry stage's default is
// described at WithRetry. Whether b may be shared by concurrent calls is
// the one rule stated at BackOff: it may if it has a Clone method, as every
// BackOff of this package has. A BackOff without Clone is Reset before the
// first attempt and called by this run only. A nil b, typed or not, is
// reported as ErrInvalidConfiguration.
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
// active at once unless overridden; a retry stage (WithRetry) sets none and
// bounds its time with WithMaxRetryTime instead. Pass 0 to disable the
// elapsed-time limit and rely on the context (or WithMaxTries) instead. A
// negative d is reported as ErrInvalidConfiguration.
//
// Because the limit counts from the call, the driver reads its clock when
// the call starts only if this limit is set: a run without it takes no
// clock reading until an attempt fails.
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

// WithMaxRetryTime limits the time spent on retries, counted from the end
// of the first failed attempt: like WithMaxElapsedTime it gates whether
// another attempt is started (a wait that would end after the limit is not
// started, and the run stops with Cause ErrMaxElapsedTime), but the first
// attempt's own duration does not count, so a slow first attempt that
// fails still gets its retries. It needs no clock reading before the first
// attempt fails. 0, the default of Retry and its kin, sets no such limit;
// a retry stage's default is DefaultMaxRetryTime. A negative d is reported
// as ErrInvalidConfiguration.
func WithMaxRetryTime(d time.Duration) RetryOption {
	return func(o *retryOptions) {
		if d < 0 {
			o.fail("WithMaxRetryTime was given a negative duration (%v)", d)
		}
		o.maxRetryTime = d
	}
}

// WithNotify sets a function called after each failed attempt that will be
// retried. See Notify for exactly when it fires. It runs on the goroutine
// that called Retry, before the wait; if it cancels the context, no further
// attempt is made. A nil n sets no function.
func WithNotify(n Notify) RetryOption {
	return func(o *retryOptions) { o.notify = n }
}

// WithClock makes the driver's waits and its elapsed-time accounting use c
// instead of the time package. Pass a *clock.Mock in a test and advance it
// to release each wait. A nil c, typed or not, is reported as
// ErrInvalidConfiguration.
//
// The driver reads the context's deadline on c as well, to decide whether a
// wait would overrun it; give a test on a mock clock its deadline with
// c.WithTimeout or c.WithDeadline, or bound it with WithMaxElapsedTime,
// WithMaxTries or a cancellation.
func WithClock(c clock.Clock) RetryOption {
	return func(o *retryOptions) {
		if c == nil || typednil.Is(c) {
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

// WithAttemptTimeout gives each attempt its own deadline, d after the
// attempt starts, through the context the operation receives: it is the
// shortcut for a WithTimeout stage just inside the retry. Only the entry
// points whose operation takes a context (Do, DoErr, a retry stage) can
// apply it; Retry, RetryCtx, RetryError and RetryErrorCtx report it as
// ErrInvalidConfiguration. An attempt that runs out of time is an ordinary
// failure, retried like any other, because the caller's context is still
// alive. 0, the default, sets no per-attempt deadline; a negative d is
// reported as ErrInvalidConfiguration. The attempt's context is cancelled
// when the operation returns, so a result that keeps using it (an HTTP
// response body, say) must be consumed inside the operation.
func WithAttemptTimeout(d time.Duration) RetryOption {
	return func(o *retryOptions) {
		if d < 0 {
			o.fail("WithAttemptTimeout was given a negative duration (%v)", d)
		}
		o.attemptTimeout = d
	}
}
