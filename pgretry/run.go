package pgretry

import (
	"context"
	"database/sql"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/internal/typednil"
	"github.com/herdsafe/backoff/sqlretry"
	"github.com/jackc/pgx/v5"
)

// settings makes the errors of the settings this package cannot use.
const settings = setting.Package("pgretry")

// NewRunner returns a sqlretry.Runner that classifies errors with
// Classify. Use its Run method with a *sql.DB opened with pgx's stdlib
// driver, or this package's Run with a *pgxpool.Pool or a *pgx.Conn.
func NewRunner(opts ...sqlretry.Option) *sqlretry.Runner {
	return sqlretry.New(Classifier, opts...)
}

// Beginner begins pgx transactions: *pgxpool.Pool, *pgx.Conn and pgx.Tx
// are Beginners.
type Beginner interface {
	BeginTx(ctx context.Context, txOptions pgx.TxOptions) (pgx.Tx, error)
}

// Run calls fn in a transaction that db begins with r's isolation level
// and access mode, and commits it; on an error worth it (as r's
// classifier says: make r with NewRunner), it rolls the transaction back
// and calls fn again in a new one, after the wait of r's Retrier. It keeps
// every promise of package sqlretry's Runner, and its rollbacks are
// bounded by r's rollback timeout. fn must use the context and the pgx.Tx
// it receives for its statements and must not commit or roll back the
// pgx.Tx. It returns nil once a COMMIT succeeded, or else a *backoff.Error.
//
// An isolation level PostgreSQL does not have (sql.LevelSnapshot,
// sql.LevelLinearizable, sql.LevelWriteCommitted) is reported as
// backoff.ErrInvalidConfiguration before anything begins.
func Run(ctx context.Context, r *sqlretry.Runner, db Beginner, fn func(context.Context, pgx.Tx) error) error {
	if err := r.Validate(); err != nil {
		return &backoff.Error{Cause: err}
	}
	if db == nil || typednil.Is(db) {
		return &backoff.Error{Cause: settings.Invalid("Run was given a nil Beginner")}
	}
	opts := pgx.TxOptions{}
	switch l := r.Isolation(); l {
	case sql.LevelDefault:
	case sql.LevelReadUncommitted:
		opts.IsoLevel = pgx.ReadUncommitted
	case sql.LevelReadCommitted:
		opts.IsoLevel = pgx.ReadCommitted
	case sql.LevelRepeatableRead:
		opts.IsoLevel = pgx.RepeatableRead
	case sql.LevelSerializable:
		opts.IsoLevel = pgx.Serializable
	default:
		return &backoff.Error{Cause: settings.Invalid("the Runner's isolation level %s is not one of PostgreSQL's", l)}
	}
	if r.ReadOnly() {
		opts.AccessMode = pgx.ReadOnly
	}
	return sqlretry.RunTx(ctx, r, pgxTx{db: db, opts: opts}, fn)
}

// pgxTx is the TxDriver of pgx.
type pgxTx struct {
	db   Beginner
	opts pgx.TxOptions
}

func (d pgxTx) Begin(ctx context.Context) (pgx.Tx, error)   { return d.db.BeginTx(ctx, d.opts) }
func (pgxTx) Commit(ctx context.Context, tx pgx.Tx) error   { return tx.Commit(ctx) }
func (pgxTx) Rollback(ctx context.Context, tx pgx.Tx) error { return tx.Rollback(ctx) }
