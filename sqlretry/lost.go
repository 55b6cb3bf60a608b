package sqlretry

import (
	"errors"
	"io"
	"net"
	"syscall"
)

// ConnectionLost reports whether err says that a connection failed, the
// same way for every driver: a net.Error, an EOF (the server closed the
// connection), a connection refused, reset or broken, or a use of a
// closed connection. A driver's own errors for the same (pgconn's
// ErrConnClosed, mysql's ErrInvalidConn) are its classifier's to add. It
// looks through wrapping. context.DeadlineExceeded is a net.Error too: a
// classifier asks about the context's errors first, as pgretry's and
// mysqlretry's do.
func ConnectionLost(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)
}

// Retryable reports whether a statement that failed with an error of
// class c may succeed if run again: Retry, Connection, ReadOnly and
// Unsent. It is what a statement outside a transaction may be retried on,
// and only if running it twice does no harm: a connection lost while a
// write was in flight leaves its outcome unknown. A Runner, which knows
// COMMIT from the rest, decides for transactions.
func (c Class) Retryable() bool {
	switch c {
	case Retry, Connection, ReadOnly, Unsent:
		return true
	}
	return false
}
