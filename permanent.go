package backoff

// Permanent wraps err to signal that Retry should stop immediately instead
// of retrying. Retry then returns an *Error with Cause ErrPermanent and
// LastErr set to err. Permanent(nil) returns nil.
//
// The mark survives wrapping: an operation may return
// fmt.Errorf("building the request: %w", backoff.Permanent(err)), and then
// LastErr is that whole error, so the context it adds is kept. The mark
// matches ErrPermanent, so errors.Is(err, ErrPermanent) finds it anywhere
// in a chain, as the driver does; an error that wraps ErrPermanent itself
// stops the driver the same way. Permanent is checked before any
// WithRetryable classifier and before any limit. The wrapper prints err's
// message unchanged.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err: err}
}

// permanentError is the mark of Permanent.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }

func (e *permanentError) Unwrap() error { return e.err }

// Is reports that the mark matches ErrPermanent.
func (e *permanentError) Is(target error) bool { return target == ErrPermanent }
