package backoff

import "time"

// marks are what the decision step reads from an attempt's error: a
// guard's refusal, a Permanent mark, and the first Pushback.
type marks struct {
	refused   error // the error of a guard that refused the attempt
	permanent bool
	cancel    bool          // a Pushback asked that no retry be made
	hasAfter  bool          // a Pushback named the next wait
	after     time.Duration // that wait
	restart   bool          // the BackOff's sequence starts over after it
	cause     error         // the cause given to RetryAfter, if any
}

// findMarks walks err's chain once, depth first as errors.As does, and
// returns the marks it holds.
func findMarks(err error) marks {
	var m marks
	m.walk(err)
	return m
}

// walk adds what err's chain holds to m. It reports true once nothing
// further can change the outcome: a refusal or a Permanent mark has been
// found.
func (m *marks) walk(err error) bool {
	for err != nil {
		switch e := err.(type) {
		case *refusal:
			m.refused = e.err
			return true
		case *permanentError:
			m.permanent = true
			return true
		case Pushback:
			m.pushback(e)
		case *Error:
			// Its Unwrap would allocate the slice of Cause and LastErr.
			return m.walk(e.Cause) || m.walk(e.LastErr)
		}
		if x, ok := err.(interface{ As(any) bool }); ok {
			var p *permanentError
			if x.As(&p) {
				m.permanent = true
				return true
			}
			var ra *RetryAfterError
			var pb Pushback
			switch {
			case x.As(&ra):
				m.pushback(ra)
			case x.As(&pb):
				m.pushback(pb)
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

// pushback records the first Pushback of the chain.
func (m *marks) pushback(p Pushback) {
	if m.hasAfter || m.cancel {
		return
	}
	if p.CancelAllRetries() {
		m.cancel = true
		return
	}
	m.hasAfter, m.after, m.restart = true, max(p.RetryAfter(), 0), true
	if ra, ok := p.(*RetryAfterError); ok {
		m.cause = ra.err
	}
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
	if m.cause != nil {
		return m.cause
	}
	return err
}

// refusal marks the error of a guard that refused a call, so that the
// stages around it tell a refusal from a failure of the call.
type refusal struct{ err error }

func (r *refusal) Error() string { return r.err.Error() }

func (r *refusal) Unwrap() error { return r.err }

// IsPermanent reports whether err carries a Permanent mark anywhere in its
// chain, as the driver finds it: through wrapping, errors.Join and As
// methods.
func IsPermanent(err error) bool { return findMarks(err).permanent }
