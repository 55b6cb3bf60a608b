package pgretry

import (
	"context"
	"database/sql/driver"
	"errors"

	"github.com/herdsafe/backoff/sqlretry"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Classifier is the sqlretry.Classifier of PostgreSQL's errors: Classify.
var Classifier sqlretry.Classifier = sqlretry.ClassifierFunc(Classify)

// Classify returns what err, from pgx (natively or through its database/sql
// driver), means for a transaction:
//
//   - sqlretry.Retry: serialization_failure (40001) and deadlock_detected
//     (40P01), which abort the transaction; lock_not_available (55P03, a
//     lock_timeout or NOWAIT); too_many_connections (53300);
//     cannot_connect_now (57P03, a server starting up or shutting down).
//   - sqlretry.Connection: a connection exception (class 08), a backend
//     terminated by the server (admin_shutdown 57P01, as
//     pg_terminate_backend and a fast shutdown do, and crash_shutdown
//     57P02), a connection refused, reset or cut (pgconn.ConnectError, a
//     net.Error, io.EOF, pgconn.ErrConnClosed).
//   - sqlretry.Unsent: an error pgx says is safe to retry because nothing
//     reached the server (pgconn.SafeToRetry), and driver.ErrBadConn of
//     pgx's database/sql driver, which it returns only then.
//   - sqlretry.ReadOnly: read_only_sql_transaction (25006), the refusal of
//     a server that is, or became, a standby.
//   - sqlretry.Aborted: in_failed_sql_transaction (25P02), and pgx's
//     ErrTxCommitRollback (a COMMIT the server turned into a ROLLBACK): the
//     function went on after an error.
//   - sqlretry.Permanent: every other answer of the server, among them
//     integrity violations (class 23), syntax and access errors (class 42),
//     data exceptions (class 22) and query_canceled (57014, a
//     statement_timeout).
//   - sqlretry.Unknown: anything else, a context's error included.
//
// It looks through wrapping and is safe for concurrent use.
func Classify(err error) sqlretry.Class {
	if err == nil {
		return sqlretry.Unknown
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return classifyCode(pe.Code)
	}
	switch {
	case errors.Is(err, pgx.ErrTxCommitRollback):
		return sqlretry.Aborted
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return sqlretry.Unknown
	case pgconn.SafeToRetry(err), errors.Is(err, driver.ErrBadConn):
		return sqlretry.Unsent
	case connectionLost(err):
		return sqlretry.Connection
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return sqlretry.Connection
	}
	return sqlretry.Unknown
}

// Retryable reports whether a statement that failed with err may succeed
// if run again: Classify(err).Retryable() (see sqlretry.Class.Retryable).
// Use it with backoff.WithRetryable for a statement outside a transaction
// only if running it twice does no harm; for transactions use a Runner.
func Retryable(err error) bool { return Classify(err).Retryable() }

// classifyCode returns the Class of a SQLSTATE.
func classifyCode(code string) sqlretry.Class {
	switch code {
	case "40001", "40P01", "55P03", "53300", "57P03":
		return sqlretry.Retry
	case "57P01", "57P02":
		return sqlretry.Connection
	case "25006":
		return sqlretry.ReadOnly
	case "25P02":
		return sqlretry.Aborted
	}
	if len(code) == 5 && code[:2] == "08" {
		return sqlretry.Connection
	}
	return sqlretry.Permanent
}

// connectionLost reports whether err says the connection failed: as
// sqlretry.ConnectionLost, or by the driver's own errors.
func connectionLost(err error) bool {
	return sqlretry.ConnectionLost(err) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, pgconn.ErrConnClosed)
}
