package backoff

// permanentError marks an error that must not be retried.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }

func (e *permanentError) Unwrap() error { return e.err }

// Permanent wraps err to signal that Retry should stop immediately instead
// of retrying. Retry then returns an *Error with Cause ErrPermanent and
// LastErr set to err. Permanent(nil) returns nil.
//
// The mark survives wrapping: an operation may return
// fmt.Errorf("building the request: %w", backoff.Permanent(err)), and then
// LastErr is that whole error, so the context it adds is kept. Permanent is
// checked before any WithRetryable classifier and before any limit.
// The wrapper prints err's message unchanged.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err: err}
}

// permanentCause reports whether err carries a Permanent mark, and the error
// to report as LastErr: the error given to Permanent when err is the mark
// itself, else err whole.
func permanentCause(err error) (error, bool) {
	if p, ok := err.(*permanentError); ok {
		return p.err, true
	}
	if _, ok := findAs[*permanentError](err); ok {
		return err, true
	}
	return nil, false
}
