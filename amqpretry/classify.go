package amqpretry

import (
	"errors"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Retryable reports whether a connection or channel that closed with err,
// or a dial or an operation that failed with it, is worth connecting again
// for. It is a Supervisor's default classifier.
//
// It rejects what connecting again would meet again, the broker's refusals
// of what it was asked: access refused (403, bad credentials or no access
// to the virtual host), precondition failed (406, a queue declared again
// with other arguments), not found (404), an invalid path (402), not
// allowed (530), not implemented (540), content too large (311), a value
// that cannot be encoded or decoded (502, amqp091.ErrFieldType among
// them), and a frame the broker could not parse or did not expect (501,
// 503, 505, when the broker sent them: a client's mistake).
//
// It accepts the rest: a connection forced closed (320, the broker
// stopping or an operator closing it), a resource error (506) or a
// resource locked (405, an exclusive queue the broker has not yet released
// from a dead connection), an internal error (541), a channel or
// connection that is not open (504, amqp091.ErrClosed), the network
// failing (which amqp091-go reports as a frame error, 501, of its own),
// a frame this client did not expect (503, 505: a new connection starts
// the protocol over),
// and any error that is not an *amqp091.Error: a refused or reset TCP
// connection, a timeout.
func Retryable(err error) bool {
	if err == nil {
		return false
	}
	var e *amqp.Error
	if !errors.As(err, &e) || e == nil {
		return true
	}
	switch e.Code {
	case amqp.AccessRefused, amqp.PreconditionFailed, amqp.NotFound, amqp.InvalidPath,
		amqp.NotAllowed, amqp.NotImplemented, amqp.ContentTooLarge, amqp.SyntaxError:
		return false
	case amqp.FrameError, amqp.CommandInvalid, amqp.UnexpectedFrame:
		return !e.Server
	}
	return true
}
