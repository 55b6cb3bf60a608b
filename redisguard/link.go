package redisguard

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/redis/go-redis/v9"
)

// link is a guard's way to its shared state: the script it runs there,
// the timeout of each round trip, and whether the guard decides on the
// shared state or, Redis having failed, on its local fallback.
//
// It turns local when a round trip fails, and lets one call try Redis
// again each retry interval; the first round trip that succeeds turns it
// shared again. Its counters are atomic, and it takes no lock.
type link struct {
	client  redis.Scripter
	script  *redis.Script
	src     string
	keys    []string
	timeout time.Duration
	every   time.Duration
	clock   clock.Clock

	onFallback func(error)
	onRecover  func()

	local   atomic.Bool
	retryAt atomic.Int64 // while local: when a call may try Redis, in Unix ns of clock

	roundTrips atomic.Uint64
	reloads    atomic.Uint64
	errs       atomic.Uint64
	fallbacks  atomic.Uint64
	recoveries atomic.Uint64
	decisions  atomic.Uint64 // calls that found the link local
}

// newLink returns the link of a guard of c running src on its keys, which
// share a hash tag (see config.key), so that a cluster keeps them in one
// slot.
func newLink(client redis.Scripter, src string, c *config, keys ...string) *link {
	return &link{
		client:     client,
		script:     redis.NewScript(src),
		src:        src,
		keys:       keys,
		timeout:    c.timeout,
		every:      c.retryEvery,
		clock:      c.clock,
		onFallback: c.onFallback,
		onRecover:  c.onRecover,
	}
}

// ready reports whether the caller should make its decision on the shared
// state: always while the link is shared; while it is local, for the first
// caller after the retry interval, which then tries Redis for the others.
// A caller told false decides locally.
func (l *link) ready() bool {
	if !l.local.Load() {
		return true
	}
	at := l.retryAt.Load()
	now := l.clock.Now().UnixNano()
	if now < at {
		l.decisions.Add(1)
		return false
	}
	if !l.retryAt.CompareAndSwap(at, now+int64(l.every)) {
		l.decisions.Add(1)
		return false
	}
	return true
}

// run runs the script on the shared state with args, in one round trip
// bounded by the timeout, and returns its reply. If the server has
// forgotten the script (NOSCRIPT: a restart, a SCRIPT FLUSH, another node
// of a cluster), run sends it whole with EVAL, which also caches it again:
// one more round trip. ctx gives the round trip its values, not its
// cancellation: the caller giving up is no failure of Redis.
//
// A failed round trip turns the link local; a successful one turns it
// shared. The hooks run on the calling goroutine, after the turn.
func (l *link) run(ctx context.Context, args ...any) ([]any, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.timeout)
	defer cancel()
	l.roundTrips.Add(1)
	r, err := l.client.EvalSha(ctx, l.script.Hash(), l.keys, args...).Result()
	if noScript(err) {
		l.reloads.Add(1)
		l.roundTrips.Add(1)
		r, err = l.client.Eval(ctx, l.src, l.keys, args...).Result()
	}
	var reply []any
	if err == nil {
		var ok bool
		if reply, ok = r.([]any); !ok {
			err = errReply
		}
	}
	if err != nil {
		l.failed(err)
		return nil, err
	}
	if l.local.Load() && l.local.CompareAndSwap(true, false) {
		l.recoveries.Add(1)
		if l.onRecover != nil {
			l.onRecover()
		}
	}
	return reply, nil
}

// failed turns the link local after a round trip failed with err.
func (l *link) failed(err error) {
	l.errs.Add(1)
	l.retryAt.Store(l.clock.Now().Add(l.every).UnixNano())
	if l.local.CompareAndSwap(false, true) {
		l.fallbacks.Add(1)
		if l.onFallback != nil {
			l.onFallback(err)
		}
	}
}

// errReply is the error of a reply that is not the script's.
var errReply = errors.New("redisguard: the script's reply is not an array")

// noScript reports whether err says the server does not have the script.
func noScript(err error) bool {
	return err != nil && (errors.Is(err, redis.ErrNoScript) || redis.HasErrorPrefix(err, "NOSCRIPT"))
}

// Link is the figures of a guard's way to Redis, for telemetry. Each is
// read atomically, but not all at the same instant.
type Link struct {
	// Shared is true while the guard decides on the shared state, false
	// while Redis having failed it decides on its local fallback.
	Shared bool
	// RoundTrips counts the scripts sent to Redis, each one round trip
	// (EVALSHA, or EVAL after a NOSCRIPT answer), failed ones included.
	RoundTrips uint64
	// Reloads counts the NOSCRIPT answers: the server had forgotten the
	// script, which was sent again whole.
	Reloads uint64
	// Errors counts the round trips that failed: timed out, refused, or
	// answered with an error.
	Errors uint64
	// Fallbacks counts the turns from the shared state to the local
	// fallback, and Recoveries the returns.
	Fallbacks  uint64
	Recoveries uint64
	// LocalDecisions counts the Allow and Record calls that found the
	// guard local and went to its local fallback.
	LocalDecisions uint64
}

// fallback returns what Fallback methods report.
func (l *link) fallback() (local bool, fallbacks, recoveries uint64) {
	return l.local.Load(), l.fallbacks.Load(), l.recoveries.Load()
}

// stats returns the link's figures.
func (l *link) stats() Link {
	return Link{
		Shared:         !l.local.Load(),
		RoundTrips:     l.roundTrips.Load(),
		Reloads:        l.reloads.Load(),
		Errors:         l.errs.Load(),
		Fallbacks:      l.fallbacks.Load(),
		Recoveries:     l.recoveries.Load(),
		LocalDecisions: l.decisions.Load(),
	}
}

// ints reads the first n integers of a script's reply.
func ints(r []any, n int) ([]int64, bool) {
	if len(r) < n {
		return nil, false
	}
	out := make([]int64, n)
	for i := range n {
		v, ok := r[i].(int64)
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}
