package sqlretry

import (
	"context"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/typednil"
)

// A TxDriver begins, commits and rolls back transactions of type T for
// RunTx: it is how a runner reaches a driver other than database/sql's
// (package pgretry's Run is RunTx with one for pgx). Each method receives
// the attempt's context, except Rollback, which receives a context of its
// own bounded by the runner's rollback timeout.
type TxDriver[T any] interface {
	Begin(ctx context.Context) (T, error)
	Commit(ctx context.Context, tx T) error
	Rollback(ctx context.Context, tx T) error
}

// RunTx is Runner.Run for transactions of any driver: it begins a
// transaction with d, calls fn with it, commits it with d, and on an error
// worth it rolls it back with d and starts again, through r's Retrier. It
// keeps every promise of the package's documentation.
func RunTx[T any](ctx context.Context, r *Runner, d TxDriver[T], fn func(context.Context, T) error) error {
	if err := check(ctx, r, d, fn); err != nil {
		return &backoff.Error{Cause: err}
	}
	return r.cfg.retrier.DoErr(ctx, func(ctx context.Context) error {
		return attempt(ctx, r, d, fn)
	})
}

// check returns what RunTx cannot use, or nil.
func check[T any](ctx context.Context, r *Runner, d TxDriver[T], fn func(context.Context, T) error) error {
	if err := r.Validate(); err != nil {
		return err
	}
	switch {
	case ctx == nil:
		return settings.Invalid("the runner was given a nil context")
	case d == nil || typednil.Is(d):
		return settings.Invalid("RunTx was given a nil TxDriver")
	case fn == nil:
		return settings.Invalid("the runner was given a nil function")
	}
	return nil
}

// attempt runs one transaction and returns nil once it committed, or the
// error to give the driver: a retryable one as it is, anything else marked
// permanent.
func attempt[T any](ctx context.Context, r *Runner, d TxDriver[T], fn func(context.Context, T) error) error {
	tx, err := d.Begin(ctx)
	if err != nil {
		return r.judge(err)
	}
	done := false
	defer func() { // on an error and on a panic alike
		if !done {
			rollback(ctx, r, d, tx)
		}
	}()
	if err := fn(ctx, tx); err != nil {
		return r.judge(err)
	}
	if err := ctx.Err(); err != nil {
		return backoff.Permanent(context.Cause(ctx)) // never commit once the caller gave up
	}
	done = true // a COMMIT that fails ends the transaction: nothing to roll back
	if err := d.Commit(ctx, tx); err != nil {
		return r.judgeCommit(err)
	}
	return nil
}

// judge returns the driver's view of err, from BEGIN or from the function.
func (r *Runner) judge(err error) error {
	switch r.classifier.Classify(err) {
	case Retry, Connection, Unsent:
		return err
	case ReadOnly:
		if !r.cfg.readOnly {
			return err
		}
	case Aborted:
		return backoff.Permanent(&aborted{err})
	}
	return backoff.Permanent(err)
}

// judgeCommit returns the driver's view of err from COMMIT: an error that
// is no answer of the server leaves the outcome unknown.
func (r *Runner) judgeCommit(err error) error {
	switch c := r.classifier.Classify(err); c {
	case Connection, Unknown:
		u := &commitUnknown{err}
		if r.cfg.idempotent && c == Connection {
			return u
		}
		return backoff.Permanent(u)
	}
	return r.judge(err)
}

// rollback rolls tx back on a context free of ctx's cancellation and
// bounded by the runner's rollback timeout. Its error is dropped: the
// attempt's error is the one to report, and a driver closes a connection
// whose rollback failed.
func rollback[T any](ctx context.Context, r *Runner, d TxDriver[T], tx T) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cfg.rollback)
	defer cancel()
	_ = d.Rollback(rctx, tx)
}
