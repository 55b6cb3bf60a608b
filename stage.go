package backoff

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"
)

// Stage is one layer of a Policy: a retry stage (WithRetry), a timeout
// (WithTimeout), panic recovery (WithRecover), a fallback (WithFallback,
// WithFallbackErr) or a guard (WithGuard). A Stage is a value: the same one
// may appear in several policies. Its zero value is not a stage; NewPolicy
// reports it.
type Stage struct {
	kind  stageKind
	retry *retryOptions // retryStage
	after time.Duration // timeoutStage
	v     any           // the Guard, the fallback function, or a timeout's clock (nil: the time package)
	err   error         // why the stage cannot be used
}

type stageKind uint8

const (
	noStage stageKind = iota
	retryStage
	timeoutStage
	recoverStage
	guardStage
	fallbackStage
)

// run runs stages, outermost first, around c's function.
//
// Every entry point comes here: Retry and its kin and Do with the stages
// their options make, a Policy with its own. The arguments are few on
// purpose: every stage passes them on. The stages are not kept in c, so
// that what they refer to (a guard, the options) and what c refers to
// (the caller's result) are apart, and the caller's result stays on its
// stack.
func run(ctx context.Context, stages []Stage, c *call) error {
	if len(stages) == 0 {
		return c.fn(ctx)
	}
	s, rest := &stages[0], stages[1:]
	switch s.kind {
	case retryStage:
		return retrying(ctx, s.retry, rest, c)
	case timeoutStage:
		return timed(ctx, s, rest, c)
	case recoverStage:
		return recovering(ctx, rest, c)
	case guardStage:
		return guarded(ctx, s.v.(Guard), rest, c)
	}
	return fallingBack(ctx, s.v, rest, c)
}

// DefaultRetryMaxTries and DefaultMaxRetryTime bound a retry stage that
// sets no limit of its own; see WithRetry.
const (
	DefaultRetryMaxTries = 3
	DefaultMaxRetryTime  = 30 * time.Second
)

// FullJitterBackOff returns the BackOff a retry stage uses unless told
// otherwise: exponential waits whose nominal value starts at 100 ms and
// doubles after each retry, capped at 5 s, each drawn uniformly from
// [0, nominal] (FullJitter).
func FullJitterBackOff() *ExponentialBackOff {
	return NewExponentialBackOff(
		WithInitialInterval(100*time.Millisecond),
		WithMaxInterval(5*time.Second),
		WithMultiplier(2),
		WithJitter(FullJitter),
	)
}

// stageDefaults are the settings of a retry stage before its options.
var stageDefaults = retryOptions{
	backOff:      FullJitterBackOff(),
	maxTries:     DefaultRetryMaxTries,
	maxRetryTime: DefaultMaxRetryTime,
}

// WithRetry returns a retry stage: it runs the stages inside it again, as
// the options say, until they succeed. It takes every RetryOption, with
// opinionated defaults for a Policy that serves a fleet:
//
//   - The waits are FullJitterBackOff: full jitter, which spreads a fleet
//     that failed together the widest.
//   - At most DefaultRetryMaxTries (3) attempts, so that in an outage the
//     stage multiplies the load on the dependency by 3 at most.
//   - At most DefaultMaxRetryTime (30 s) spent on retries, counted from the
//     end of the first failed attempt (WithMaxRetryTime): a Retry-After
//     longer than that is not slept on, and no attempt is started after it.
//     It counts from the first failure, not from the call, so that a
//     successful call reads no clock.
//
// WithMaxTries(0) and WithMaxRetryTime(0) remove those bounds;
// WithMaxElapsedTime adds a bound counted from the stage's start. The
// shortcuts WithAttemptTimeout and WithPanicRecovery become a WithTimeout
// and a WithRecover stage just inside this one.
func WithRetry(opts ...RetryOption) Stage {
	o := new(retryOptions).build(&stageDefaults, opts)
	if o.err == nil && o.backOff != nil {
		o.err = validateBackOff(o.backOff)
	}
	return Stage{kind: retryStage, retry: o, err: o.err}
}

// stages appends the stages a call with options o runs: the retry stage,
// then those of its shortcuts.
func (o *retryOptions) stages(to []Stage) []Stage {
	to = append(to, Stage{kind: retryStage, retry: o})
	if o.attemptTimeout > 0 {
		to = append(to, Stage{kind: timeoutStage, after: o.attemptTimeout, v: o.clock})
	}
	if o.recoverPanics {
		to = append(to, Stage{kind: recoverStage})
	}
	return to
}

// WithTimeout returns a stage that gives the stages inside it d to finish,
// through the context they receive, on the time package's clock (virtual
// inside a testing/synctest bubble). Inside a retry stage it bounds each
// attempt, and an attempt that runs out of time is an ordinary failure,
// retried like any other, because the caller's context is still alive;
// outside it, it bounds the whole retry loop. It cannot preempt a
// function that ignores its context: the stage returns when the function
// does, with what the function returned. A d that is not positive is
// reported as ErrInvalidConfiguration.
func WithTimeout(d time.Duration) Stage {
	return timeoutOn(nil, d)
}

// WithTimeoutClock is WithTimeout with the deadline measured by c, such as
// a *clock.Mock in a test. A nil c is reported as ErrInvalidConfiguration.
func WithTimeoutClock(c clock.Clock, d time.Duration) Stage {
	if c == nil {
		return Stage{err: invalidf("WithTimeoutClock was given a nil clock")}
	}
	return timeoutOn(c, d)
}

func timeoutOn(c clock.Clock, d time.Duration) Stage {
	if d <= 0 {
		return Stage{err: invalidf("a timeout stage was given a duration that is not positive (%v)", d)}
	}
	s := Stage{kind: timeoutStage, after: d}
	if c != nil {
		s.v = c
	}
	return s
}

// timed runs the rest of the stages with the deadline of the timeout stage
// s.
func timed(ctx context.Context, s *Stage, rest []Stage, c *call) error {
	var cancel context.CancelFunc
	if clk, ok := s.v.(clock.Clock); ok {
		ctx, cancel = clk.WithTimeout(ctx, s.after)
	} else {
		ctx, cancel = context.WithTimeout(ctx, s.after)
	}
	defer cancel()
	return run(ctx, rest, c)
}
