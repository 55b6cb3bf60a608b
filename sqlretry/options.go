package sqlretry

import (
	"database/sql"
	"time"

	"github.com/herdsafe/backoff"
)

// An Option configures a [Runner].
type Option func(*config)

// config is what the options set.
type config struct {
	retrier    *backoff.Retrier
	isolation  sql.IsolationLevel
	readOnly   bool
	idempotent bool
	rollback   time.Duration
	err        error // the first option that cannot be used
}

// DefaultRollbackTimeout is how long a Runner waits for a ROLLBACK unless
// WithRollbackTimeout says otherwise.
const DefaultRollbackTimeout = 5 * time.Second

func (c *config) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// WithRetrier makes the runner retry through r: its BackOff, attempt and
// time limits, classifiers (which see only the errors this package calls
// retryable) and instrumenters. A runner given none makes ten attempts at
// most, with waits drawn uniformly from zero to a bound that starts at 50
// ms and doubles up to 5 s (an ExponentialBackOff with FullJitter): short
// enough for a serialization failure, spread enough for a fleet that
// reconnects after a restart.
func WithRetrier(r *backoff.Retrier) Option {
	return func(c *config) {
		if r == nil {
			c.fail(settings.Invalid("WithRetrier was given a nil *backoff.Retrier"))
			return
		}
		if err := r.Validate(); err != nil {
			c.fail(settings.Invalid("WithRetrier was given a Retrier that cannot run: %w", err))
			return
		}
		c.retrier = r
	}
}

// WithIsolation makes the runner begin its transactions at level, as
// sql.TxOptions.Isolation does; sql.LevelDefault, the default, leaves the
// server's. A level the driver does not support fails BEGIN, or
// (package pgretry's Run) the call, with an error naming it.
func WithIsolation(level sql.IsolationLevel) Option {
	return func(c *config) {
		if level < sql.LevelDefault || level > sql.LevelLinearizable {
			c.fail(settings.Invalid("WithIsolation was given an unknown level (%d)", int(level)))
			return
		}
		c.isolation = level
	}
}

// WithReadOnly makes the runner begin read-only transactions. A write in one
// then fails for good, not as a failed-over primary's refusal.
func WithReadOnly() Option {
	return func(c *config) { c.readOnly = true }
}

// WithIdempotent declares that running the transaction twice does no harm (it
// writes only what a second run would write the same, or checks a key of
// its own first): a COMMIT whose outcome is unknown is then retried like
// any connection failure. Without it, such a COMMIT ends the run with
// ErrCommitOutcomeUnknown.
func WithIdempotent() Option {
	return func(c *config) { c.idempotent = true }
}

// WithRollbackTimeout bounds each ROLLBACK of an attempt that failed
// (DefaultRollbackTimeout unless set). A rollback runs on a context of
// its own, free of the caller's cancellation, so that a cancelled call
// still ends its transaction; a rollback that does not finish in time
// leaves the connection to the driver, which closes it.
func WithRollbackTimeout(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.fail(settings.Invalid("WithRollbackTimeout was given a duration that is not positive (%v)", d))
			return
		}
		c.rollback = d
	}
}
