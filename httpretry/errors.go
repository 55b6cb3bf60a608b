package httpretry

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/setting"
)

var (
	// ErrBodyNotReplayable is matched by the error RoundTrip returns when a
	// retryable transport error was not retried because the request body
	// cannot be recreated: it has no GetBody, or GetBody failed or returned
	// a nil body. That error matches the transport error too, and GetBody's
	// error if there was one. A retryable response in the same case is
	// handed to the caller as it is, with a nil error; the *StatusError an
	// Instrumenter sees for it matches ErrBodyNotReplayable.
	ErrBodyNotReplayable = errors.New("httpretry: the request body cannot be replayed")

	// ErrInvalidConfiguration is matched by the error RoundTrip returns,
	// before sending anything, when the Transport was built with an
	// option it cannot use, and when the BackOff from WithBackOff fails
	// during a request (it returns a negative wait). It is the core package's
	// backoff.ErrInvalidConfiguration, so either can be matched; the
	// message names the setting, in the words of every package of the
	// module: "backoff: invalid configuration: httpretry: WithMaxRetryAfter
	// was given a negative duration (-1s)".
	ErrInvalidConfiguration = backoff.ErrInvalidConfiguration
)

// errMethodNotReplayable is why a request whose method is not retryable,
// and which carries no idempotency key, was not retried.
var errMethodNotReplayable = errors.New("the method is not retryable and the request carries no idempotency key")

// StatusError describes a response the classifier found retryable. It is
// the error an Instrumenter and a logger see for such an attempt.
//
// RoundTrip returns the response itself, not a StatusError, whenever it can.
// A StatusError reaches its caller only when RoundTrip has closed that
// response instead: the request's context was cancelled, or its deadline
// passed, during or after the attempt that got it (the error then matches
// the context's error); the drain of the response for a retry took the
// time WithMaxElapsedTime had left (the error matches
// backoff.ErrMaxElapsedTime); or the BackOff failed while deciding on a
// retry (the error matches ErrInvalidConfiguration). In each case the
// returned error is a *backoff.Error whose LastErr is the StatusError, so
// errors.As finds it.
type StatusError struct {
	// Method is the request's method.
	Method string
	// URL is the request's URL with the userinfo password and the query
	// redacted.
	URL string
	// StatusCode is the response's status code.
	StatusCode int
	// RetryAfter is the wait the server asked for in a Retry-After header,
	// or 0 if it asked for none or none that could be obeyed.
	RetryAfter time.Duration

	reason error // why the response was not retried, if it was not
	call   *call // the call that holds the response, until it is discarded for the retry
}

// Error names the request and the status, and why the response was not
// retried when it was not.
func (e *StatusError) Error() string {
	msg := fmt.Sprintf("httpretry: %s %s: %d %s", e.Method, e.URL, e.StatusCode, http.StatusText(e.StatusCode))
	if e.reason != nil {
		msg += " (not retried: " + reasonText(e.reason) + ")"
	}
	return msg
}

// Unwrap returns why the response was not retried, if it was not, e.g. an
// error matching ErrBodyNotReplayable.
func (e *StatusError) Unwrap() error { return e.reason }

// retryAfterTooLongError is why a response whose Retry-After exceeds the
// maximum was not retried.
type retryAfterTooLongError struct{ wait, max time.Duration }

func (e *retryAfterTooLongError) Error() string {
	return fmt.Sprintf("the server asked to wait %v, more than the maximum of %v", e.wait, e.max)
}

// notReplayableError is a retryable transport error met by a request whose
// body cannot be recreated. It matches the transport error, and reason,
// which is ErrBodyNotReplayable or a *getBodyError.
type notReplayableError struct{ err, reason error }

func (e *notReplayableError) Error() string {
	return e.err.Error() + " (not retried: " + reasonText(e.reason) + ")"
}

func (e *notReplayableError) Unwrap() []error { return []error{e.err, e.reason} }

// reasonText is why a failure was not retried, for a message.
func reasonText(reason error) string {
	if reason == ErrBodyNotReplayable {
		return "the request body cannot be replayed"
	}
	return reason.Error()
}

// getBodyError is a failure to recreate the request body for a retry: GetBody
// returned an error, or a nil body. It matches ErrBodyNotReplayable and
// GetBody's error.
type getBodyError struct{ err error }

func (e *getBodyError) Error() string {
	if e.err == nil {
		return "the request body cannot be replayed: GetBody returned a nil body"
	}
	return "the request body cannot be replayed: GetBody failed: " + e.err.Error()
}

func (e *getBodyError) Unwrap() []error {
	if e.err == nil {
		return []error{ErrBodyNotReplayable}
	}
	return []error{ErrBodyNotReplayable, e.err}
}

// settings makes the errors of the settings a Transport cannot use.
const settings = setting.Package("httpretry")

// errZero is the error of a Transport NewTransport did not make.
var errZero = settings.NotMade("Transport", "NewTransport")

// errNilResponse is returned when the base RoundTripper breaks its contract
// by returning neither a response nor an error.
var errNilResponse = errors.New("httpretry: the base RoundTripper returned a nil response and a nil error")
