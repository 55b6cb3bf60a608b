package sqlretry

import (
	"context"
	"database/sql"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/typednil"
)

// Runner runs functions in transactions, and runs a function again, whole
// and in a new transaction, when its classifier says the failure is worth
// it (see the package's documentation for what it promises). Make one with
// New, or with pgretry.NewRunner or mysqlretry.NewRunner; it is immutable
// and safe for concurrent use. The zero Runner has no classifier: its
// calls fail with an error matching backoff.ErrInvalidConfiguration.
type Runner struct {
	classifier Classifier
	cfg        config
}

// defaultRetrier is the Retrier of a Runner given none: see WithRetrier.
var defaultRetrier = backoff.NewRetrier(backoff.WithMaxTries(10), backoff.WithBackOff(&backoff.ExponentialBackOff{
	InitialInterval: 50 * time.Millisecond,
	Multiplier:      2,
	MaxInterval:     5 * time.Second,
	Jitter:          backoff.FullJitter,
}))

// New returns a Runner that classifies errors with c, configured by opts.
// A nil c, or an option that cannot be used, makes every call of the
// Runner fail before it begins anything, with an error matching
// backoff.ErrInvalidConfiguration that names the setting.
func New(c Classifier, opts ...Option) *Runner {
	r := &Runner{classifier: c, cfg: config{retrier: defaultRetrier, rollback: DefaultRollbackTimeout}}
	if c == nil || typednil.Is(c) {
		r.cfg.fail(settings.Invalid("New was given a nil Classifier"))
	}
	for _, o := range opts {
		if o == nil {
			r.cfg.fail(settings.Invalid("New was given a nil Option"))
			continue
		}
		o(&r.cfg)
	}
	return r
}

// Validate reports the first setting r cannot use, as an error matching
// backoff.ErrInvalidConfiguration, or nil.
func (r *Runner) Validate() error {
	switch {
	case r == nil:
		return settings.Invalid("the *Runner is nil")
	case r.classifier == nil && r.cfg.err == nil:
		return settings.Invalid("the Runner was not made by New")
	}
	return r.cfg.err
}

// Isolation returns the isolation level r begins its transactions at.
func (r *Runner) Isolation() sql.IsolationLevel { return r.cfg.isolation }

// ReadOnly reports whether r begins read-only transactions.
func (r *Runner) ReadOnly() bool { return r.cfg.readOnly }

// TxOptions returns the sql.TxOptions r begins its database/sql
// transactions with.
func (r *Runner) TxOptions() *sql.TxOptions {
	return &sql.TxOptions{Isolation: r.cfg.isolation, ReadOnly: r.cfg.readOnly}
}

// Beginner begins database/sql transactions: *sql.DB and *sql.Conn are
// Beginners.
type Beginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// Run calls fn in a transaction that db begins with r's options, and
// commits it; on an error worth it, it rolls the transaction back and calls
// fn again in a new one, after the Retrier's wait. fn receives the
// attempt's context and must use it, and the *sql.Tx, for its statements;
// it must not commit or roll back the *sql.Tx itself.
//
// Run returns nil once a COMMIT succeeded, or else a *backoff.Error (see
// the package's documentation). ctx bounds the whole run: once it is done,
// no attempt begins and the wait between attempts ends. database/sql rolls
// a transaction back by itself when its context ends; Rollback and Commit
// of database/sql take no context, so a dead connection bounds them only
// through the driver's own timeouts.
func (r *Runner) Run(ctx context.Context, db Beginner, fn func(context.Context, *sql.Tx) error) error {
	if db == nil || typednil.Is(db) {
		if err := r.Validate(); err != nil {
			return &backoff.Error{Cause: err}
		}
		return &backoff.Error{Cause: settings.Invalid("Run was given a nil Beginner")}
	}
	return RunTx(ctx, r, sqlTx{db: db, opts: r.TxOptions()}, fn)
}

// sqlTx is the TxDriver of database/sql.
type sqlTx struct {
	db   Beginner
	opts *sql.TxOptions
}

func (d sqlTx) Begin(ctx context.Context) (*sql.Tx, error) { return d.db.BeginTx(ctx, d.opts) }
func (sqlTx) Commit(_ context.Context, tx *sql.Tx) error   { return tx.Commit() }
func (sqlTx) Rollback(_ context.Context, tx *sql.Tx) error { return tx.Rollback() }
