package hedge

import (
	"errors"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
)

// verdict says what the error err of a failed attempt does to the call: a
// non-nil cause ends it at once, and now starts the next attempt at once.
func (h *Hedger) verdict(err error) (cause error, now bool) {
	if cause := fatal(err); cause != nil {
		return cause, false
	}
	if len(h.classifiers) == 0 {
		return nil, false
	}
	for _, fn := range h.classifiers {
		if fn(err) {
			return nil, true
		}
	}
	return backoff.ErrPermanent, false
}

// fatal returns the Cause of a call that err ends at once whatever the
// classifiers say, as it would stop a retry stage at once, or nil: a
// guard's refusal, a Permanent error, a cancellation of retries, or, from
// the inner Policy, an *backoff.Error that reports one (or an invalid
// configuration).
func fatal(err error) error {
	var e *backoff.Error
	if errors.As(err, &e) { // the inner Policy's: it has classified the error
		switch {
		case guard.IsRefusal(e),
			errors.Is(e.Cause, backoff.ErrPermanent),
			errors.Is(e.Cause, backoff.ErrRetriesCanceled),
			errors.Is(e.Cause, backoff.ErrInvalidConfiguration):
			return e.Cause
		}
		return nil
	}
	switch {
	case errors.Is(err, backoff.ErrRefused):
		return err
	case errors.Is(err, backoff.ErrPermanent):
		return backoff.ErrPermanent
	case errors.Is(err, backoff.ErrRetriesCanceled):
		return backoff.ErrRetriesCanceled
	}
	return nil
}
