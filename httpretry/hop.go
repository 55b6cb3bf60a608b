package httpretry

import (
	"context"
	"net/http"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/hop"
)

// hopHeader sets the headers of package hop in h, the headers of the
// attempt about to be sent with the context actx: its number, and the
// time left until actx's deadline, if it has one, read on the Transport's
// clock.
func (c *call) hopHeader(actx context.Context, h http.Header) {
	hc := hop.Caller{Attempt: c.number}
	if d, ok := actx.Deadline(); ok {
		hc.Timeout, hc.HasTimeout = c.t.clock.Until(d), true
	}
	hop.WriteHeader(h, hc)
}

// stop reports whether resp, a response worth a retry, says not to retry
// it (hop.StopHeader, or Envoy's X-Envoy-Overloaded): its *StatusError,
// serr, then matches hop.ErrDoNotRetry and backoff.ErrRetriesCanceled,
// which stops the driver at once.
func (c *call) stop(resp *http.Response, serr *StatusError) bool {
	reason, ok := hop.Stopped(resp.Header)
	if !ok {
		return false
	}
	c.stopped = true
	serr.reason = &stopReason{reason: reason}
	return true
}

// stopReason is why a response that said not to retry was not retried.
type stopReason struct{ reason string }

func (e *stopReason) Error() string {
	if e.reason == "" {
		return "the server said not to retry"
	}
	return "the server said not to retry (" + e.reason + ")"
}

func (e *stopReason) Unwrap() error { return hop.ErrDoNotRetry }

// giveUp tells the tier the request's context carries, if any (see
// package hop), that this call gave up on the tier below, so that the
// tier answers its own caller "do not retry": when the call's last attempt
// failed for a reason worth a retry after it had retried, when the tier
// below said not to retry, and when a guard refused an attempt. A call
// whose own context ended says nothing: its caller gave up first. err is
// what the Transport's Policy returned.
func (c *call) giveUp(err error) {
	switch {
	case c.Context.Err() != nil:
	case c.stopped:
		hop.GiveUp(c.Context, hop.ReasonExhausted)
	case err != nil && backoff.MarksOf(err).Refused:
		hop.GiveUp(c.Context, hop.ReasonOverloaded)
	case c.failing && c.number > 1:
		hop.GiveUp(c.Context, hop.ReasonExhausted)
	}
}
