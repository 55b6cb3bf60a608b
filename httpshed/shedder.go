package httpshed

import (
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/pushback"
)

// Defaults of a Shedder.
const (
	// DefaultRetryAfter is the base of the wait a Shedder tells a refused
	// request, before the guard's state lengthens it.
	DefaultRetryAfter = time.Second
	// DefaultMaxRetryAfter is the longest wait a Shedder tells.
	DefaultMaxRetryAfter = 2 * time.Minute
	// DefaultRetryPressure is the guard's pressure (pushback.Pressure) at
	// which a Shedder starts to shed retries: a fifth of a bulkhead's
	// places is kept for first calls.
	DefaultRetryPressure = 0.8
)

// Shedder sheds a server's load through a guard, and tells each request
// the guard refuses when to come back. Make one with New; its Handler is
// the middleware. A Shedder is immutable and safe for concurrent use, as
// its guard must be. Its zero value is not usable: Validate reports it, and
// its Handler answers every request with 500 Internal Server Error.
type Shedder struct {
	g      guard.Guard
	base   time.Duration
	max    time.Duration
	random func() float64
	rule   pushback.Rule // of base, max and random
	status int
	err    error // why the Shedder cannot be used

	clock         clock.Clock
	retryPressure float64        // WithRetryPressure's
	tiers         bool           // WithTier's
	gate          *pushback.Gate // of g, clock and retryPressure
}

// New returns a Shedder that asks g to admit each request, configured by
// opts. New returns no error, so that it fits where a handler is built: a
// nil g, typed or not, one whose Validate (guard.Validator) fails, or an
// option given a value it cannot use makes a Shedder whose Validate reports
// it, as an error matching backoff.ErrInvalidConfiguration that names the
// setting, and whose Handler answers every request with 500 Internal Server
// Error and that error. Call Validate at start-up.
func New(g guard.Guard, opts ...Option) *Shedder {
	s := &Shedder{g: g, base: DefaultRetryAfter, max: DefaultMaxRetryAfter, random: rand.Float64, status: http.StatusServiceUnavailable,
		clock: setting.RealClock, retryPressure: DefaultRetryPressure, tiers: true}
	switch isNil, err := guard.Check(g); {
	case isNil:
		settings.Fail(&s.err, "New was given a nil guard.Guard")
	case err != nil:
		settings.Fail(&s.err, "New was given a %T that cannot be used: %s", g, setting.Reason(err))
	}
	setting.Apply(settings, &s.err, "New", s, opts)
	if s.max < s.base {
		settings.Fail(&s.err, "WithMaxRetryAfter(%v) is shorter than the base wait, WithRetryAfter(%v)", s.max, s.base)
	}
	s.rule = s.newRule()
	s.gate = pushback.NewGate(g, s.clock, s.retryPressure)
	return s
}

// settings makes the errors of a Shedder that cannot be used: the first
// setting it cannot use is the one reported.
const settings = setting.Package("httpshed")

// Validate reports why s cannot be used, as an error matching
// backoff.ErrInvalidConfiguration, or nil.
func (s *Shedder) Validate() error {
	switch {
	case s == nil || s.g == nil && s.err == nil:
		return settings.NotMade("Shedder", "New")
	case s.err != nil:
		return s.err
	}
	return nil
}
