package backoff

// marks are what the driver looks for in an operation's error chain: a
// Permanent mark, and the first RetryAfterError.
type marks struct {
	permanent  bool
	retryAfter *RetryAfterError
}

// findMarks walks err's chain once, depth first as errors.As does, and
// returns the marks it holds.
func findMarks(err error) marks {
	var m marks
	m.walk(err)
	return m
}

// walk adds what err's chain holds to m. It reports true once nothing
// further can change the outcome: a Permanent mark has been found.
func (m *marks) walk(err error) bool {
	for err != nil {
		switch e := err.(type) {
		case *permanentError:
			m.permanent = true
			return true
		case *RetryAfterError:
			if m.retryAfter == nil {
				m.retryAfter = e
			}
		}
		if x, ok := err.(interface{ As(any) bool }); ok {
			var p *permanentError
			if x.As(&p) {
				m.permanent = true
				return true
			}
			var ra *RetryAfterError
			if m.retryAfter == nil && x.As(&ra) {
				m.retryAfter = ra
			}
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range x.Unwrap() {
				if m.walk(inner) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

// lastErr is the error to report as Error.LastErr for err, whose marks m
// are: for a Permanent error, the error given to Permanent when err is the
// mark itself, else err whole; after a RetryAfter, the cause given to it;
// else err.
func (m marks) lastErr(err error) error {
	if m.permanent {
		if p, ok := err.(*permanentError); ok {
			return p.err
		}
		return err
	}
	if m.retryAfter != nil && m.retryAfter.err != nil {
		return m.retryAfter.err
	}
	return err
}
