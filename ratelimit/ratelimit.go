package ratelimit

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
	"golang.org/x/time/rate"
)

// A Limiter admits calls at a rate, with a burst; see the package
// documentation. It is a [guard.Guard] and a [guard.Validator].
//
// A Limiter is safe for concurrent use, and is meant to be shared by every
// call it limits. Its zero value is not a limiter: it refuses every call
// with an error matching [backoff.ErrInvalidConfiguration]; make one with
// [New].
type Limiter struct {
	// mu is held around every use of lim, with the clock read under it:
	// x/time takes the times it is given as they come, so a time read
	// before another caller's, but given after, would move its clock back
	// and credit the time between twice; and a reservation cancelled
	// after another caller's reserved nothing would give nothing back.
	// Under mu, lim sees one time after another, never going back (see
	// now), and a refusal's reservation is given back before anyone else
	// reserves.
	mu   sync.Mutex
	last time.Time // the latest time given to lim, under mu

	lim     *rate.Limiter // nil: not usable
	clock   clock.Clock
	maxWait time.Duration // 0: refuse at once
	err     error         // the configuration's error

	refused atomic.Uint64
	waited  atomic.Uint64
	waiting atomic.Int64
}

var (
	_ guard.Guard     = (*Limiter)(nil)
	_ guard.Validator = (*Limiter)(nil)
)

// New returns a Limiter that admits r calls a second on average, and up to
// burst calls at once: its bucket starts full, with burst tokens, and
// fills at r tokens a second. r is an x/time rate.Limit, a number of calls
// a second (rate.Every(10*time.Millisecond) is 100); burst a number of
// calls. Without options a call that finds no token is refused at once,
// and time is the time package's.
//
// r must be positive and finite, burst at least 1. rate.Inf is refused:
// an infinite rate limits nothing (leave the guard out instead), and
// x/time would admit every call whatever the burst. New returns no error,
// so that it fits inline in policy.New: a setting it cannot use makes a
// Limiter that refuses every call with an error matching
// backoff.ErrInvalidConfiguration that names the setting, which Validate
// reports and policy.Guard reports for the Policy. A bad rate, a bad burst
// and the first bad option are all reported, joined in that order.
func New(r rate.Limit, burst int, opts ...Option) *Limiter {
	c := newConfig(r, burst, opts)
	if c.err != nil {
		return &Limiter{err: c.err}
	}
	return &Limiter{lim: rate.NewLimiter(r, burst), clock: c.clock, maxWait: c.maxWait}
}

// Validate reports why the Limiter cannot be used: what New could not use
// (of its rate, its burst and the first bad option, each that is wrong),
// or that it is a zero Limiter. The error matches
// backoff.ErrInvalidConfiguration. policy.Guard calls it, so that a Policy
// with a bad Limiter fails before it runs anything.
func (l *Limiter) Validate() error {
	if l == nil || (l.err == nil && l.lim == nil) {
		return errZero
	}
	return l.err
}

// Allow takes a token for the call, as a [guard.Guard]: it admits the
// call if the bucket holds one now. If not, it refuses the call with
// ErrRateLimited, or, with WithWait or WithMaxWait, reserves the next
// token and waits for it on the Limiter's clock: the call is admitted when
// its token comes; refused with ErrRateLimited, without waiting, if the
// token comes later than the longest wait allowed or than ctx's deadline;
// and refused with ctx's cause if ctx is done first, the token being given
// back. c is not read.
//
// A ctx already done is refused with its cause, and takes no token. A nil
// ctx is refused with an error matching [backoff.ErrInvalidConfiguration],
// and so is every call to a Limiter that cannot be used (see Validate).
// Record need not be called, but may be: a Limiter does not look at how
// calls end.
func (l *Limiter) Allow(ctx context.Context, _ guard.Call) (guard.Permit, error) {
	switch {
	case ctx == nil:
		return guard.Permit{}, errNilContext
	case l == nil || l.lim == nil:
		return guard.Permit{}, l.Validate()
	case ctx.Err() != nil:
		return guard.Permit{}, context.Cause(ctx)
	}
	l.mu.Lock()
	now := l.now()
	if l.lim.AllowN(now, 1) {
		l.mu.Unlock()
		return guard.Permit{}, nil
	}
	if l.maxWait == 0 {
		l.mu.Unlock()
		l.refused.Add(1)
		return guard.Permit{}, limited{l}
	}
	return guard.Permit{}, l.wait(ctx, now)
}

// wait reserves the next token at now and waits for it, as Allow says.
// It is called with mu held, and releases it.
func (l *Limiter) wait(ctx context.Context, now time.Time) error {
	r := l.lim.ReserveN(now, 1)
	delay := r.DelayFrom(now)
	if !r.OK() || delay > l.maxWait || l.overruns(ctx, delay) {
		r.CancelAt(now) // no one reserved since: the token is all given back
		l.mu.Unlock()
		l.refused.Add(1)
		return limited{l}
	}
	l.mu.Unlock()
	if delay == 0 { // a token came in between
		return nil
	}
	l.waiting.Add(1) // before the timer exists: whoever sees the timer sees the wait counted
	defer l.waiting.Add(-1)
	t := l.clock.Timer(delay)
	select {
	case <-t.C:
		l.waited.Add(1)
		return nil
	case <-ctx.Done():
		t.Stop()
		l.mu.Lock()
		r.CancelAt(l.now())
		l.mu.Unlock()
		return context.Cause(ctx)
	}
}

// epoch is the origin of the times a Limiter gives its x/time limiter:
// each is epoch plus the clock's Since(epoch), which on the time package's
// clock reads only the monotonic clock, at about half the cost of Now. On
// a mock clock they follow the mock's time.
var epoch = time.Now()

// now reads the Limiter's clock, under mu: the time it returns is never
// before the one it returned last, even on a clock set back (a mock's),
// so that x/time's clock never goes back.
func (l *Limiter) now() time.Time {
	t := epoch.Add(l.clock.Since(epoch))
	if t.Before(l.last) {
		return l.last
	}
	l.last = t
	return t
}

// untilToken returns how long until the bucket holds a token, from now on
// the Limiter's clock: 0 if it holds one, else the tokens missing over the
// rate, saturating at the largest Duration.
func (l *Limiter) untilToken() time.Duration {
	l.mu.Lock()
	tokens := l.lim.TokensAt(l.now())
	l.mu.Unlock()
	if tokens >= 1 {
		return 0
	}
	d := math.Ceil((1 - tokens) / float64(l.lim.Limit()) * float64(time.Second))
	if !(d < math.MaxInt64) {
		return math.MaxInt64
	}
	return time.Duration(d)
}

// overruns reports whether a wait of delay from now would end after ctx's
// deadline.
func (l *Limiter) overruns(ctx context.Context, delay time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return ok && delay > l.clock.Until(deadline)
}

// Record does nothing: a Limiter admits calls by the clock alone, whatever
// the calls it admitted did. It makes the Limiter a [guard.Guard].
func (l *Limiter) Record(guard.Permit, guard.Outcome) {}

// Run runs fn under the Limiter: it is [guard.Run] with
// guard.Call{Attempt: 1}. It asks Allow, which may wait as the options
// say, and if the call is admitted, calls fn with ctx. A refusal returns,
// without calling fn, an error that matches [backoff.ErrRefused] and
// wraps Allow's error (ErrRateLimited, or ctx's cause), so that a retry
// driver around Run stops at once. fn's error is returned unchanged, and a
// panic of fn goes on to the caller. A ctx done already is refused before
// the Limiter is asked, as guard.Run refuses one (see package guard): it
// takes no token. A nil ctx or fn is reported as an error matching
// backoff.ErrInvalidConfiguration.
func (l *Limiter) Run(ctx context.Context, fn func(context.Context) error) error {
	return guard.Run(ctx, l, guard.Call{Attempt: 1}, fn)
}
