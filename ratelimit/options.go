package ratelimit

import (
	"math"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/internal/setting"
	"golang.org/x/time/rate"
)

// An Option configures a Limiter; see New. An option given a setting it
// cannot use is recorded, not applied: the Limiter then refuses every call
// with that error (see Limiter.Validate).
type Option func(*config)

// config is what New's arguments and the options set.
type config struct {
	maxWait time.Duration // 0: refuse at once
	clock   clock.Clock
	err     error // what New could not use: see newConfig
}

// forever is the longest wait of WithWait: as long as the context allows.
const forever = time.Duration(math.MaxInt64)

// newConfig returns the configuration of New's arguments and opts: in
// its err, what is wrong with the rate, with the burst, and the first bad
// option, joined.
func newConfig(r rate.Limit, burst int, opts []Option) *config {
	c := &config{clock: setting.RealClock}
	setting.Apply(settings, &c.err, "New", c, opts)
	c.err = setting.Join(checkRate(r), checkBurst(burst), c.err)
	return c
}

// checkRate reports what is wrong with the rate New was given.
func checkRate(r rate.Limit) error {
	const want = "it must be a positive, finite number of calls a second"
	switch f := float64(r); {
	case math.IsNaN(f):
		return settings.Invalid("New was given the rate NaN; %s", want)
	case r == rate.Inf || math.IsInf(f, 0):
		return settings.Invalid("New was given an infinite rate, which limits nothing; %s", want)
	case r <= 0:
		return settings.Invalid("New was given the rate %v; %s", f, want)
	}
	return nil
}

// checkBurst reports what is wrong with the burst New was given.
func checkBurst(burst int) error {
	if burst < 1 {
		return settings.Invalid("New was given the burst %d; it must be at least 1", burst)
	}
	return nil
}

// WithWait makes a call that finds no token wait for its turn, for as long
// as its context allows, instead of being refused at once: the call is
// refused only if its context's deadline comes before its token (at once,
// without waiting) or its context is done while it waits. The last of
// WithWait and WithMaxWait given decides.
func WithWait() Option {
	return func(c *config) { c.maxWait = forever }
}

// WithMaxWait makes a call that finds no token wait for its turn, as
// WithWait does, but at most d: a call whose token comes later than d is
// refused at once, without waiting, and gives its place back. d must be
// positive: a negative or zero d is reported as an invalid configuration
// (leave the option out to refuse at once). The last of WithWait and
// WithMaxWait given decides.
func WithMaxWait(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			settings.Fail(&c.err, "WithMaxWait was given %v; it must be positive (leave it out to refuse at once)", d)
			return
		}
		c.maxWait = d
	}
}

// WithClock sets the clock the Limiter fills its bucket and times its
// waits on, such as a *clock.Mock in a test or the herd simulator's
// virtual clock. The default is clock.New(), the time package's (virtual
// inside a testing/synctest bubble). A nil c, typed or not, is reported
// as an invalid configuration.
func WithClock(c clock.Clock) Option {
	return func(cf *config) { settings.Clock(&cf.clock, &cf.err, c) }
}
