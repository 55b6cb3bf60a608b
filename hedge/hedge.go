package hedge

import "github.com/herdsafe/backoff/internal/setting"

// Hedger is a hedging configuration: how long to wait for an attempt before
// starting another, and how many attempts a call may make. Make one with
// [New] and call through it with [Do]. A Hedger is immutable and safe
// for concurrent use: calls through it share nothing but its budget guard,
// if it has one.
type Hedger struct {
	config
	err  error // why the configuration cannot be used
	made bool  // made by New
}

// New returns a Hedger with the given options. [WithDelay] is required;
// the defaults of the others are [DefaultMaxAttempts] attempts, the time
// package's clock, no classifier, no budget and no discard function.
//
// New returns no error: the first option it cannot use (a negative delay,
// a nil clock...) and a missing delay are recorded, [Hedger.Validate]
// reports them, and every call through the Hedger fails with them before
// running anything.
func New(opts ...Option) *Hedger {
	c := config{maxAttempts: DefaultMaxAttempts, clock: setting.RealClock}
	setting.Apply(settings, &c.err, "New", &c, opts)
	var noDelay error
	if !c.delaySet {
		noDelay = settings.Invalid("WithDelay is required (about the dependency's 95th percentile latency)")
	}
	return &Hedger{config: c, err: setting.Join(c.err, noDelay), made: true}
}

// Validate reports the first option the Hedger could not use and a
// missing WithDelay, as an error matching [backoff.ErrInvalidConfiguration]
// that names them, or that New did not make the Hedger (a zero or nil
// Hedger), or nil.
func (h *Hedger) Validate() error {
	if h == nil || !h.made {
		return errNotMade
	}
	return h.err
}
