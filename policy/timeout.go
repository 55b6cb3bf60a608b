package policy

import (
	"time"
)

// Timeout returns a stage that gives the stages inside it d to finish,
// through the context they receive, on the time package's clock (virtual
// inside a testing/synctest bubble). Inside a retry stage it bounds each
// attempt, and an attempt that runs out of time is an ordinary failure,
// retried like any other, because the caller's context is still alive;
// outside it, it bounds the whole retry loop, whose waits end with it. It
// cannot preempt a function that ignores its context: the stage returns
// when the function does, with what the function returned; the context is
// cancelled then, as context.WithTimeout's cancel does. The deadline's
// timer is armed only when something waits for the context to end (its
// Done channel, a context derived from it): a call that returns before
// looking costs one allocation and one reading of the monotonic clock. A d
// that is not positive is reported as backoff.ErrInvalidConfiguration.
func Timeout(d time.Duration) Stage {
	if d <= 0 {
		return Stage{err: settings.Invalid("Timeout was given a duration that is not positive (%v)", d)}
	}
	return Stage{kind: timeoutStage, after: d}
}
