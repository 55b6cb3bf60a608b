// Package mysqlretry retries MySQL and MariaDB transactions, whole, when
// the server says running them again may succeed, through database/sql
// with go-sql-driver/mysql: NewRunner returns a *sqlretry.Runner whose Run
// takes a *sql.DB. Classify tells which of the server's errors are worth
// it; the package's tests provoke them on a real MariaDB server. The
// runner's promises (never a statement again inside a transaction, always
// a rollback, no retry of a COMMIT whose outcome is unknown unless declared
// idempotent) are package sqlretry's.
//
// A lock wait timeout (1205) rolls back only the statement in InnoDB, not
// the transaction; the runner rolls the rest back before it runs the
// function again, so the function never sees a half-done transaction.
//
// After a restart of the server, database/sql keeps its dead connections
// until it uses them: go-sql-driver/mysql checks a connection's liveness
// before its first statement (checkConnLiveness, on by default) and
// returns driver.ErrBadConn, on which database/sql takes another
// connection, at most twice, then dials a new one, at once. The runner
// adds the wait between attempts: a BEGIN or a statement that fails so is
// retried after a wait of the Retrier's BackOff, full jitter by default,
// so that a fleet reconnects spread out rather than in one instant. Set
// the driver's timeout, readTimeout and writeTimeout (DSN parameters) so
// that a server that stops answering cannot hold a call without bound.
package mysqlretry
