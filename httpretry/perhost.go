package httpretry

import (
	"context"
	"net/url"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/setting"
)

// Defaults of a PerHost guard.
const (
	// DefaultMaxHosts is the most hosts a PerHost guard keeps a guard for.
	DefaultMaxHosts = 1000
	// DefaultIdleHost is how long a host's guard is kept unused before a
	// new one replaces it.
	DefaultIdleHost = 10 * time.Minute
)

// HostGuard is a guard.Guard that gives each host a Transport sends to a
// guard of its own, so that one bad backend does not open the circuit for
// all: Envoy's per-host outlier detection, Polly's partitioned
// strategies. Make one with PerHost, and give it to WithAttemptGuards, so
// that it sees each attempt:
//
//	hosts := httpretry.PerHost(func(string) guard.Guard { return breaker.New() })
//	client := &http.Client{Transport: httpretry.NewTransport(nil, httpretry.WithAttemptGuards(hosts))}
//
// The host is the request's URL.Host (its port included), as the context
// a Transport runs its guards with carries it; a call that is not a
// Transport's shares the key "".
// Memory is bounded: at most WithMaxHosts hosts have a guard (a new host
// past that replaces the one used least recently), and a host unused for
// WithIdleHost gets a new guard when it is used again, so a breaker that
// opened long ago does not outlive what it judged.
//
// A HostGuard is safe for concurrent use. Each Allow takes a mutex twice,
// briefly, and reads the clock once; the host's guard is asked, and a new
// one made, with no lock held.
type HostGuard struct {
	newGuard func(host string) guard.Guard
	max      int
	idle     time.Duration
	clock    clock.Clock
	err      error

	mu      sync.Mutex
	hosts   map[string]*hostEntry
	permits map[uint64]admission // the calls admitted and not yet recorded
	next    uint64
}

// hostEntry is a host's guard and when it was last asked.
type hostEntry struct {
	g    guard.Guard
	used time.Time
}

// admission is what Record needs of a call a host's guard admitted.
type admission struct {
	g guard.Guard
	p guard.Permit
}

// HostOption configures a HostGuard.
type HostOption func(*HostGuard)

// PerHost returns a HostGuard that asks newGuard for the guard of each new
// host, on the goroutine of the first call to it, with no lock held (a
// panic goes on to that call). newGuard must return a new, usable guard
// each time; a nil one, or one whose Validate fails, refuses the call with
// an error matching backoff.ErrInvalidConfiguration. A nil newGuard, or
// an option given a value it cannot use, makes a HostGuard that refuses
// every call so, which Validate reports.
func PerHost(newGuard func(host string) guard.Guard, opts ...HostOption) *HostGuard {
	h := &HostGuard{newGuard: newGuard, max: DefaultMaxHosts, idle: DefaultIdleHost, clock: setting.RealClock,
		hosts: map[string]*hostEntry{}, permits: map[uint64]admission{}}
	if newGuard == nil {
		settings.Fail(&h.err, "PerHost was given a nil function")
	}
	setting.Apply(settings, &h.err, "PerHost", h, opts)
	return h
}

// WithMaxHosts sets the most hosts a HostGuard keeps a guard for (default
// DefaultMaxHosts); a new host past it replaces the host used least
// recently, whose guard is forgotten (the calls it admitted are still
// recorded to it). n must be at least 1.
func WithMaxHosts(n int) HostOption {
	return func(h *HostGuard) {
		if n < 1 {
			settings.Fail(&h.err, "WithMaxHosts(%d): must be at least 1", n)
			return
		}
		h.max = n
	}
}

// WithIdleHost sets how long a host's guard is kept unused (default
// DefaultIdleHost): a host used again after longer gets a new guard, and
// idle hosts are the first replaced. d must be above 0.
func WithIdleHost(d time.Duration) HostOption {
	return func(h *HostGuard) {
		if d <= 0 {
			settings.Fail(&h.err, "WithIdleHost(%v): must be above 0", d)
			return
		}
		h.idle = d
	}
}

// WithHostClock makes a HostGuard measure idleness on c, such as a
// *clock.Mock in a test. A nil c, typed or not, is invalid.
func WithHostClock(c clock.Clock) HostOption {
	return func(h *HostGuard) { settings.Clock(&h.clock, &h.err, c) }
}

// Validate reports why the HostGuard cannot be used, as an error matching
// backoff.ErrInvalidConfiguration, or nil.
func (h *HostGuard) Validate() error {
	switch {
	case h == nil || h.hosts == nil && h.err == nil:
		return settings.NotMade("HostGuard", "PerHost")
	case h.err != nil:
		return h.err
	}
	return nil
}

// Allow asks the guard of the call's host to admit it, making that guard
// first if the host has none.
func (h *HostGuard) Allow(ctx context.Context, c guard.Call) (guard.Permit, error) {
	if err := h.Validate(); err != nil {
		return guard.Permit{}, err
	}
	if ctx == nil {
		return guard.Permit{}, settings.NilContext()
	}
	g, err := h.guard(hostOf(ctx))
	if err != nil {
		return guard.Permit{}, err
	}
	p, err := g.Allow(ctx, c)
	if err != nil {
		return guard.Permit{}, err
	}
	h.mu.Lock()
	h.next++
	token := h.next
	h.permits[token] = admission{g: g, p: p}
	h.mu.Unlock()
	return guard.Permit{Token: token}, nil
}

// Record tells the guard that admitted the call how it ended.
func (h *HostGuard) Record(p guard.Permit, o guard.Outcome) {
	if h == nil || h.permits == nil {
		return
	}
	h.mu.Lock()
	a, ok := h.permits[p.Token]
	delete(h.permits, p.Token)
	h.mu.Unlock()
	if ok {
		a.g.Record(a.p, o)
	}
}

// Hosts returns the number of hosts that have a guard now.
func (h *HostGuard) Hosts() int {
	if h == nil {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.hosts)
}

// Guard returns the guard of host, and whether it has one: to observe a
// host's breaker, say.
func (h *HostGuard) Guard(host string) (guard.Guard, bool) {
	if h == nil {
		return nil, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.hosts[host]
	if !ok {
		return nil, false
	}
	return e.g, true
}

// guard returns the guard of host: its own, if it was used within the
// idle time, or a new one, made with no lock held.
func (h *HostGuard) guard(host string) (guard.Guard, error) {
	now := h.clock.Now()
	h.mu.Lock()
	if e, ok := h.hosts[host]; ok && now.Sub(e.used) < h.idle {
		e.used = now
		h.mu.Unlock()
		return e.g, nil
	}
	h.mu.Unlock()

	g := h.newGuard(host)
	switch isNil, err := guard.Check(g); {
	case isNil:
		return nil, guard.Refusal(settings.Invalid("PerHost's function returned a nil guard.Guard for %q", host))
	case err != nil:
		return nil, guard.Refusal(settings.Invalid("PerHost's function returned a %T that cannot be used: %s", g, setting.Reason(err)))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if e, ok := h.hosts[host]; ok && now.Sub(e.used) < h.idle {
		e.used = now // another call made it first: use that one
		return e.g, nil
	}
	if _, ok := h.hosts[host]; !ok && len(h.hosts) >= h.max {
		h.evict()
	}
	h.hosts[host] = &hostEntry{g: g, used: now}
	return g, nil
}

// evict forgets the host used least recently. It runs, under the mutex,
// only when a new host arrives with every place taken.
func (h *HostGuard) evict() {
	var oldest string
	var at time.Time
	first := true
	for host, e := range h.hosts {
		if first || e.used.Before(at) {
			oldest, at, first = host, e.used, false
		}
	}
	delete(h.hosts, oldest)
}

// hostOf returns the host of the request a Transport runs its guards for
// with the context ctx, "" if there is none.
func hostOf(ctx context.Context) string {
	if u, _ := ctx.Value(hostKey{}).(*url.URL); u != nil {
		return u.Host
	}
	return ""
}

// hostKey is the context key of the URL of a Transport's request: the
// context a Transport runs its guards with (its call) answers it.
type hostKey struct{}

// Value returns the request's URL for hostKey (a pointer, which costs no
// allocation, as a string would), and what the request's context holds for
// any other key.
func (c *call) Value(key any) any {
	if _, ok := key.(hostKey); ok {
		return c.req.URL
	}
	return c.Context.Value(key)
}
