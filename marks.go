package backoff

import (
	"errors"
	"time"
)

// Marks is what an error says of itself to a retry driver, read in one
// walk of its chain (MarksOf): every entry point of this package decides on
// it, and so do the layers above (the guard contract, pushback,
// telemetry), so that an error means the same thing to each.
type Marks struct {
	// Refused: an error in the chain matches ErrRefused; the attempt did
	// not run.
	Refused bool
	// Permanent: an error in the chain matches ErrPermanent.
	Permanent bool
	// CancelAll: an error in the chain matches ErrRetriesCanceled, or the
	// error that names the wait says CancelAllRetries() true.
	CancelAll bool
	// Named: an error in the chain names the next wait (see
	// RetryAfterError), Wait; the first found, depth first.
	Named bool
	Wait  time.Duration
	// Run is the first *Error in the chain, the result of a run that the
	// error carries; nil if none.
	Run *Error
	// Last is the error as Error.LastErr gives it: what a Permanent mark
	// wraps, the cause given to RetryAfter, or the error itself.
	Last error
}

// MarksOf walks err's chain once, depth first as errors.Is and errors.As
// do (Unwrap, Unwrap []error, Is and As methods; a *Error's Cause and then
// its LastErr), and returns what it marks. It allocates nothing unless an
// error's As method does. MarksOf(nil) is the zero Marks.
func MarksOf(err error) Marks {
	var m Marks
	m.read(err) // one call: MarksOf is inlined, and the driver's stack stays shallow
	return m
}

// read walks err's chain into m.
func (m *Marks) read(err error) {
	m.walk(err)
	m.lastOf(err)
}

// walk adds err's chain to m, in one shallow pass: a goroutine parked in a
// driver's wait keeps the stack it grew.
func (m *Marks) walk(err error) {
	for err != nil {
		if e, ok := err.(*Error); ok { // its Unwrap would allocate
			if m.Run == nil {
				m.Run = e
			}
			m.walk(e.Cause)
			m.walk(e.LastErr)
			return
		}
		x, _ := err.(interface{ Is(error) bool })
		m.Refused = m.Refused || err == ErrRefused || x != nil && x.Is(ErrRefused)
		m.Permanent = m.Permanent || err == ErrPermanent || x != nil && x.Is(ErrPermanent)
		m.CancelAll = m.CancelAll || err == ErrRetriesCanceled || x != nil && x.Is(ErrRetriesCanceled)
		if !m.Named { // here, not in a call of its own: see above
			n, ok := err.(interface{ RetryAfter() time.Duration })
			if x, isAs := err.(interface{ As(any) bool }); !ok && isAs {
				if ra := new(*RetryAfterError); x.As(ra) && *ra != nil {
					n, ok = *ra, true
				}
			}
			if ok {
				m.named(n)
			}
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				m.walk(e)
			}
			return
		default:
			return
		}
	}
}

// named records the wait n names, and the cause given to RetryAfter in
// m.Last.
func (m *Marks) named(n interface{ RetryAfter() time.Duration }) {
	m.Named, m.Wait = true, n.RetryAfter()
	if ra, isRA := n.(*RetryAfterError); isRA {
		m.Last = ra.Unwrap()
	}
	if c, isC := n.(interface{ CancelAllRetries() bool }); isC && c.CancelAllRetries() {
		m.CancelAll = true
	}
}

// lastOf sets m.Last: what a Permanent mark wraps, the cause given to
// RetryAfter (walk left it there), or err.
func (m *Marks) lastOf(err error) {
	if m.Last != nil && !m.Permanent && !m.CancelAll {
		return
	}
	m.Last = err
	if x, ok := err.(interface{ Is(error) bool }); ok && m.Permanent && x.Is(ErrPermanent) && errors.Unwrap(err) != nil {
		m.Last = errors.Unwrap(err) // err is a Permanent mark
	}
}
