package throttle

import (
	"context"
	"sync/atomic"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/window"
)

// The kinds of event the window counts.
const (
	requests = 0
	accepts  = 1
)

// A Throttle rejects calls locally, at random, in proportion to the share
// of recent calls the backend did not accept; see the package
// documentation for the rule and what counts. It is a [guard.Guard].
//
// A Throttle is safe for concurrent use, and is meant to be shared by
// every call to the same backend. Its zero value is not a throttle: it
// refuses every call with an error matching
// [backoff.ErrInvalidConfiguration].
type Throttle struct {
	w        window.Window
	k        float64
	random   func() float64
	accepted func(error) bool // nil: only a success
	maxP     float64          // the highest rejection probability
	minReq   float64          // the requests in the window below which nothing is rejected
	err      error            // the configuration's error
	ready    bool             // made by New with a good configuration

	rejected atomic.Uint64
}

var (
	_ guard.Guard     = (*Throttle)(nil)
	_ guard.Validator = (*Throttle)(nil)
)

// New returns a Throttle with the options' settings: the book's K = 2
// (WithK) over the last 2 minutes (WithWindow), a success as the only
// accept (WithAccepted), draws from math/rand/v2 (WithRandom), on the
// time package's clock (WithClock). A bad option makes a Throttle that
// refuses every call with its error, which Validate reports.
func New(opts ...Option) *Throttle {
	c := newConfig(opts)
	if c.err != nil {
		return &Throttle{err: c.err}
	}
	t := &Throttle{k: c.k, random: c.random, accepted: c.accepted, maxP: c.maxP, minReq: c.minRate * c.window.Seconds(), ready: true}
	t.w.Init(c.clock, c.window, c.offset)
	return t
}

// Validate reports the Throttle's configuration error, if it has one: an
// error matching backoff.ErrInvalidConfiguration that names the option.
// It makes the Throttle a [guard.Validator]: policy.Guard calls it, so
// that a Policy with a bad Throttle fails before it runs anything.
func (t *Throttle) Validate() error {
	if t == nil || (t.err == nil && !t.ready) {
		return errZero
	}
	return t.err
}

// Allow counts the call as a request and rejects it with probability
// max(0, (requests − K·accepts) / (requests + 1)), at most
// WithMaxRejection's cap and 0 while the window holds fewer requests than
// WithMinRate's rate makes, the counts being those of the window before
// this call: it then returns ErrThrottled. Any call
// may be rejected, first attempts included; c is not read. A
// misconfigured Throttle refuses every call with its configuration error.
// Allow never blocks, and reads nothing of ctx, but a nil ctx is refused
// with an error matching [backoff.ErrInvalidConfiguration], as every
// guard of this module refuses it, and is not counted. An admitted call
// must be reported to Record with the Permit Allow returned.
func (t *Throttle) Allow(ctx context.Context, _ guard.Call) (guard.Permit, error) {
	if ctx == nil {
		return guard.Permit{}, errNilContext
	}
	if t == nil || !t.ready {
		return guard.Permit{}, t.Validate()
	}
	e := t.w.Epoch()
	p := t.probability(t.w.Counts(e))
	reject := p > 0 && t.random() < p
	e = t.w.Add(e, requests)
	if reject {
		t.rejected.Add(1)
		return guard.Permit{}, ErrThrottled
	}
	return guard.Permit{Token: uint64(e)}, nil
}

// Record reports how a call that Allow admitted ended: a success is an
// accept, and so is an error WithAccepted's classifier accepts; any other
// error leaves the request unaccepted. An abandoned call
// (Outcome.Abandoned, success included) and an inner guard's refusal
// count neither way: the request Allow counted is taken back. An accept
// is counted with its request, in the slot of the window that was current
// at Allow, so that the two leave the window together; Record reads no
// clock.
func (t *Throttle) Record(p guard.Permit, o guard.Outcome) {
	if t == nil || !t.ready {
		return
	}
	e := int64(p.Token) // the epoch Allow counted the request in
	switch {
	case o.Abandoned:
		t.w.Remove(e, requests)
	case o.Err == nil:
		t.w.Add(e, accepts)
	case guard.IsRefusal(o.Err):
		t.w.Remove(e, requests)
	case t.accepted != nil && t.accepted(o.Err):
		t.w.Add(e, accepts)
	}
}

// Run runs fn under the Throttle: it is [guard.Run] with
// guard.Call{Attempt: 1}. It asks Allow, and if admitted calls fn and
// tells Record how it ended, even if fn panics (the panic then goes on,
// and the call counts as not accepted). A rejection returns, without
// calling fn, an error that matches [backoff.ErrRefused] and wraps
// ErrThrottled, which stops a retry driver around Run at once. A call
// whose ctx is done when fn returns is recorded as abandoned; a ctx done
// already is refused before the Throttle is asked, as guard.Run refuses
// one (see package guard).
func (t *Throttle) Run(ctx context.Context, fn func(context.Context) error) error {
	return guard.Run(ctx, t, guard.Call{Attempt: 1}, fn)
}

// probability is the book's rejection probability for the counts, at
// most WithMaxRejection's cap, and 0 below WithMinRate's requests.
func (t *Throttle) probability(req, acc uint64) float64 {
	if float64(req) < t.minReq {
		return 0
	}
	p := (float64(req) - t.k*float64(acc)) / (float64(req) + 1)
	return min(max(p, 0), t.maxP)
}

// Stats are a Throttle's counts, for telemetry.
type Stats struct {
	// Requests and Accepts are the counts in the window now.
	Requests uint64
	Accepts  uint64
	// Probability is the probability with which the next call would be
	// rejected, from those counts.
	Probability float64
	// Rejected counts the calls rejected since the Throttle was made.
	Rejected uint64
}

// Stats returns the Throttle's counts, reading its clock. Each is read
// atomically, but not all at the same instant: under concurrent calls
// they may disagree slightly.
func (t *Throttle) Stats() Stats {
	if t == nil || !t.ready {
		return Stats{}
	}
	req, acc := t.w.Counts(t.w.Epoch())
	return Stats{Requests: req, Accepts: acc, Probability: t.probability(req, acc), Rejected: t.rejected.Load()}
}
