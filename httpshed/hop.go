package httpshed

import (
	"net/http"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/hop"
	"github.com/herdsafe/backoff/pushback"
)

// WithRetryPressure sets the guard's pressure (pushback.Pressure: a
// bulkhead's or a limiter's (in flight + queued) ÷ capacity, 1 for a
// throttle that rejects or a breaker that is not closed) at which the
// Shedder refuses retries, requests whose hop.AttemptHeader is above 1,
// before asking the guard, while it still admits first calls: a retry then
// never takes a place a user's first call needs. Such a refusal is
// answered with the Shedder's status and hop.StopHeader
// ("overloaded"): the client, and the tiers above it, do not retry it.
//
// The default is DefaultRetryPressure, 0.8. Use a lower value for a server
// whose clients retry a lot, 1 to shed retries only once the guard is
// full, and +Inf to leave retries to the guard alone. A value that is
// not above 0, or NaN, is invalid.
func WithRetryPressure(p float64) Option {
	return func(s *Shedder) {
		if !(p > 0) {
			settings.Fail(&s.err, "WithRetryPressure(%v): the pressure at which retries are shed must be above 0 (+Inf sheds none)", p)
			return
		}
		s.retryPressure = p
	}
}

// WithTier says whether the handler's request context carries a
// hop.Tier, so that the Shedder answers "do not retry" (hop.StopHeader)
// for a request whose calls to the tier below gave up (see package hop).
// The default is true. It costs an admitted request a copy of the
// *http.Request (net/http's WithContext) and a context value, about a
// microsecond and 400 bytes: turn it off for a server that calls no other
// service with httpretry.
func WithTier(track bool) Option {
	return func(s *Shedder) { s.tiers = track }
}

// WithClock makes the Shedder read time on c instead of the time package:
// the deadline a request's caller sent (hop.TimeoutHeader) and the time
// requests wait for the guard. Pass a *clock.Mock in a test. A nil c, typed
// or not, is invalid.
func WithClock(c clock.Clock) Option {
	return func(s *Shedder) { settings.Clock(&s.clock, &s.err, c) }
}

// QueueTime returns the time a request waits now for the guard to admit
// it, as the Shedder last measured it: the wait of the last request the
// guard admitted, while callers are still queued; 0 when none is, and for
// a guard that makes no caller wait (see pushback.Gate). A request whose
// caller will not wait that long (hop.TimeoutHeader) is refused at once,
// with hop.StopHeader ("deadline"). It is safe for concurrent use.
func (s *Shedder) QueueTime() time.Duration {
	if s.Validate() != nil {
		return 0
	}
	return s.gate.QueueTime()
}

// Stats returns the counts of the requests the Shedder refused before
// asking its guard (a retry under pressure, a caller who would not wait
// for the queue) and the queue's time now, for telemetry: the telemetry
// modules' ObserveShedder reports them. An invalid Shedder returns the
// zero GateStats. It is safe for concurrent use.
func (s *Shedder) Stats() pushback.GateStats {
	if s.Validate() != nil {
		return pushback.GateStats{}
	}
	return s.gate.Stats()
}

// refuse answers a request the Shedder refused before its guard, saying
// not to retry it, for reason.
func (s *Shedder) refuse(w http.ResponseWriter, reason string) {
	w.Header().Set(hop.StopHeader, reason)
	http.Error(w, http.StatusText(s.status), s.status)
}
