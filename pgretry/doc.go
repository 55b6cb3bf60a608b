// Package pgretry retries PostgreSQL transactions, whole, when the server
// says running them again may succeed, with jackc/pgx v5 natively (Run,
// with a *pgxpool.Pool or a *pgx.Conn) or through database/sql (the Run
// method of the *sqlretry.Runner that NewRunner returns, with a *sql.DB
// opened with pgx's stdlib driver). Classify tells which of the server's
// errors are worth it; see its documentation for the SQLSTATEs, each of
// which the package's tests provoke on a real server. The runner's
// promises (never a statement again inside a transaction, always a
// rollback, no retry of a COMMIT whose outcome is unknown unless declared
// idempotent) are package sqlretry's.
//
// After a restart of the server, pgxpool and database/sql keep their dead
// connections until they use them: the first use fails (a connection
// error, or 57P01 from a fast shutdown) and the pool drops that
// connection; pgxpool also pings a connection idle for more than a second
// before handing it out. Neither waits before dialing again: every caller
// that finds the pool empty dials at once, and a restarting server refuses
// them all. The runner adds that wait: a BEGIN or a statement that fails
// so is retried after a wait of the Retrier's BackOff, full jitter by
// default, so that a fleet reconnects spread out rather than in one
// instant.
package pgretry
