package sqlretry

import "strconv"

// Class is what a server's error means for a transaction, as a
// [Classifier] tells it.
type Class uint8

const (
	// Unknown is an error the classifier does not recognise as an answer
	// of the server: the caller's own error, a context's, or a client-side
	// failure. It is not retried, and a COMMIT that fails with it has an
	// unknown outcome.
	Unknown Class = iota

	// Permanent is an answer of the server that running the transaction
	// again would not change: an integrity violation, a syntax or data
	// error, a permission refused.
	Permanent

	// Retry is an answer of the server that it aborted the transaction
	// and that running it again may succeed: a serialization failure, a
	// deadlock, a lock wait timeout, too many connections, a server
	// starting up.
	Retry

	// ReadOnly is the server's refusal of a write because it is read-only,
	// as a primary that became a replica in a failover is: retried (a new
	// connection may reach the new primary), unless the runner itself
	// asked for a read-only transaction with [WithReadOnly], when the write is
	// the function's mistake.
	ReadOnly

	// Aborted is the server's refusal of a statement because the
	// transaction had already failed (PostgreSQL's in_failed_sql_transaction):
	// the function ran a statement after an earlier one failed. Not
	// retried; reported as [ErrAbortedTransaction].
	Aborted

	// Connection is a connection that failed, could not be made, or was
	// ended by the server (a backend terminated, a server shutting down):
	// the transaction did not commit unless the failure came during COMMIT,
	// whose outcome is then unknown. Retried, except after COMMIT.
	Connection

	// Unsent is a failure before the request reached the server: the
	// connection was already known to be broken when the driver was to
	// send it (pgx's SafeToRetry, database/sql's driver.ErrBadConn, which
	// a driver may return only then). Retried, after COMMIT too: a COMMIT
	// that was never sent did not commit.
	Unsent
)

// String returns the name of c.
func (c Class) String() string {
	switch c {
	case Unknown:
		return "unknown"
	case Permanent:
		return "permanent"
	case Retry:
		return "retry"
	case ReadOnly:
		return "read-only"
	case Aborted:
		return "aborted"
	case Connection:
		return "connection"
	case Unsent:
		return "unsent"
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// A Classifier tells a [Runner] what one server's errors mean. Classify
// must look through wrapping (errors.As), be safe for concurrent use and
// return promptly; it is called once for each failed BEGIN, function and
// COMMIT.
type Classifier interface {
	Classify(err error) Class
}

// ClassifierFunc is a function used as a Classifier.
type ClassifierFunc func(err error) Class

// Classify returns f(err).
func (f ClassifierFunc) Classify(err error) Class { return f(err) }
