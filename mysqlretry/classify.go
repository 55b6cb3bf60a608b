package mysqlretry

import (
	"context"
	"database/sql/driver"
	"errors"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/herdsafe/backoff/sqlretry"
)

// Classifier is the sqlretry.Classifier of MySQL's and MariaDB's errors:
// Classify.
var Classifier sqlretry.Classifier = sqlretry.ClassifierFunc(Classify)

// Classify returns what err, from go-sql-driver/mysql, means for a
// transaction:
//
//   - sqlretry.Retry: ER_LOCK_DEADLOCK (1213), which rolls the transaction
//     back; ER_LOCK_WAIT_TIMEOUT (1205), which rolls back the statement
//     (the runner rolls back the rest); ER_CON_COUNT_ERROR (1040, too many
//     connections) and ER_TOO_MANY_USER_CONNECTIONS (1203).
//   - sqlretry.Connection: a connection gone away, lost, killed or
//     refused: the client errors 2006 and 2013 when a server reports them,
//     MariaDB's ER_CONNECTION_KILLED (1927), ER_SERVER_SHUTDOWN (1053),
//     the driver's ErrInvalidConn, a net.Error, io.EOF.
//   - sqlretry.Unsent: driver.ErrBadConn, which the driver returns only
//     when it wrote nothing of the request.
//   - sqlretry.ReadOnly: ER_OPTION_PREVENTS_STATEMENT (1290) naming
//     read-only (a server set read_only, as a demoted primary is) and
//     ER_READ_ONLY_MODE (1836).
//   - sqlretry.Permanent: every other error of the server, among them
//     ER_DUP_ENTRY (1062), syntax errors, and ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
//     (1792: a write in a transaction the caller began read-only).
//   - sqlretry.Unknown: anything else, a context's error included.
//
// It looks through wrapping and is safe for concurrent use.
func Classify(err error) sqlretry.Class {
	if err == nil {
		return sqlretry.Unknown
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return classifyNumber(me)
	}
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return sqlretry.Unknown
	case errors.Is(err, driver.ErrBadConn):
		return sqlretry.Unsent
	case connectionLost(err):
		return sqlretry.Connection
	}
	return sqlretry.Unknown
}

// Retryable reports whether a statement that failed with err may succeed
// if run again: Classify(err).Retryable() (see sqlretry.Class.Retryable).
// Use it with backoff.WithRetryable for a statement outside a transaction
// only if running it twice does no harm; for transactions use a Runner.
func Retryable(err error) bool { return Classify(err).Retryable() }

// classifyNumber returns the Class of a server's error.
func classifyNumber(me *mysql.MySQLError) sqlretry.Class {
	switch me.Number {
	case 1213, 1205, 1040, 1203:
		return sqlretry.Retry
	case 2006, 2013, 1927, 1053:
		return sqlretry.Connection
	case 1836:
		return sqlretry.ReadOnly
	case 1290:
		if m := strings.ToLower(me.Message); strings.Contains(m, "read-only") || strings.Contains(m, "read_only") {
			return sqlretry.ReadOnly
		}
	}
	return sqlretry.Permanent
}

// connectionLost reports whether err says the connection failed: as
// sqlretry.ConnectionLost, or by the driver's own errors.
func connectionLost(err error) bool {
	return sqlretry.ConnectionLost(err) || errors.Is(err, mysql.ErrInvalidConn)
}
