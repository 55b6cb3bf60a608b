// Package sqlretry runs database transactions again, whole, when the
// server says running them again may succeed: a serialization failure, a
// deadlock, a connection lost before COMMIT, a server restarting or
// refusing connections for a while. It knows no server: a [Classifier]
// tells it what one server's errors mean. Package pgretry gives one for
// PostgreSQL (and a runner for pgx), package mysqlretry one for MySQL and
// MariaDB; both return a *Runner of this package.
//
// A [Runner] begins a transaction, calls the caller's function with it and
// commits. When the function, BEGIN or COMMIT fails with an error the
// classifier calls retryable, it rolls the attempt back and calls the
// whole function again in a new transaction, after a wait drawn from the
// backoff.Retrier it was given (its BackOff, its limits, its instrumenters
// and the context's deadline rule all apply: the loop is the library's
// driver, not a loop of this package). It promises:
//
//   - It never runs a statement again inside a transaction: only the whole
//     function, in a new transaction. The function must therefore do
//     nothing outside the transaction that it cannot do twice, and must
//     return the first error a statement gave it (a statement that runs
//     after an error in PostgreSQL fails with in_failed_sql_transaction,
//     which the runner reports as [ErrAbortedTransaction] and does not
//     retry).
//   - It rolls back every attempt that did not commit, whether the function
//     returned an error, returned nil after the context ended, or panicked
//     (the panic then goes on, after the rollback). A rollback is bounded
//     by [WithRollbackTimeout] and runs even when the caller's context is
//     done.
//   - When COMMIT's outcome is unknown (the connection died while COMMIT
//     was in flight, so the transaction may or may not have committed) it
//     does not run the function again, unless the caller declared the
//     transaction idempotent with [WithIdempotent], and it returns an error
//     matching [ErrCommitOutcomeUnknown]: the case where a payment would
//     otherwise be applied twice.
//
// Errors come back as the driver's *backoff.Error: its Cause says why the
// runner stopped (backoff.ErrPermanent for an error not worth retrying,
// backoff.ErrExhausted, a context's cause, ...) and its LastErr is the
// last attempt's error; match either with errors.Is or errors.As.
//
// A connection that a pool hands out after the server restarted fails at
// BEGIN or at the first statement; database/sql and pgxpool then drop it,
// and the runner retries after the Retrier's wait, so that a fleet of
// callers reconnects spread over the BackOff's jitter rather than in one
// instant; [Runner.Ping] waits so for a server to answer at all. See
// docs/databases.md in the repository for a guide.
package sqlretry
