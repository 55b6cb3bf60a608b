package httpretry

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/guard"
)

// sameServer returns srv's URL under another host name, "localhost"
// instead of "127.0.0.1": the same server, another host to the Transport.
func sameServer(t *testing.T, srv *server) string {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = "localhost:" + u.Port()
	return u.String()
}

// One bad host opens its own breaker, not the other host's.
func TestPerHostBreaker(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if strings.HasPrefix(r.Host, "127.0.0.1") {
			w.WriteHeader(http.StatusServiceUnavailable) // the bad backend
		}
	})
	hosts := PerHost(func(string) guard.Guard { return breaker.New(breaker.WithConsecutiveFailures(3)) })
	rt := NewTransport(srv.base, constantWait(0), WithAttemptGuards(hosts))

	resp, err := get(t, rt, srv.URL) // 3 failures: its breaker opens
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	_, err = get(t, rt, srv.URL)
	if !errors.Is(err, breaker.ErrCircuitOpen) || !errors.Is(err, backoff.ErrRefused) {
		t.Errorf("the bad host after its breaker opened: %v; want ErrCircuitOpen", err)
	}
	good := sameServer(t, srv)
	for range 5 {
		resp, err := get(t, rt, good)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("the good host: %v, %v; want it served", resp, err)
		}
		resp.Body.Close()
	}
	if srv.hits.Load() != 3+5 || hosts.Hosts() != 2 {
		t.Errorf("%d requests reached the server, %d hosts; want 8 and 2", srv.hits.Load(), hosts.Hosts())
	}
	g, ok := hosts.Guard(strings.TrimPrefix(srv.URL, "http://"))
	if !ok || g.(*breaker.Breaker).State() != breaker.Open {
		t.Errorf("the bad host's guard: %v, %v; want its open breaker", g, ok)
	}
}

// allowHost asks h to admit a call to host, as a Transport does,
// and records it as ending with err.
func allowHost(t *testing.T, h *HostGuard, host string, err error) error {
	t.Helper()
	c := &call{Context: context.Background(), req: &http.Request{URL: &url.URL{Host: host}}}
	p, aerr := h.Allow(c, guard.Call{Attempt: 1})
	if aerr == nil {
		h.Record(p, guard.Outcome{Err: err})
	}
	return aerr
}

// Memory is bounded: past WithMaxHosts the host used least recently is
// forgotten, and a host idle past WithIdleHost gets a new guard.
func TestPerHostBounded(t *testing.T) {
	clk := clock.NewMock()
	made := map[string]int{}
	h := PerHost(func(host string) guard.Guard {
		made[host]++
		return breaker.New(breaker.WithConsecutiveFailures(1), breaker.WithOpenDuration(time.Hour), breaker.WithClock(clk))
	}, WithMaxHosts(2), WithIdleHost(time.Minute), WithHostClock(clk))
	down := errors.New("down")
	allowHost(t, h, "a", down) // a's breaker opens
	clk.Add(time.Second)
	allowHost(t, h, "b", nil)
	clk.Add(time.Second)
	if err := allowHost(t, h, "a", nil); !errors.Is(err, breaker.ErrCircuitOpen) {
		t.Fatalf("a after its failure: %v; want its open breaker", err)
	}
	clk.Add(time.Second)
	allowHost(t, h, "c", nil) // b is the least recently used: forgotten
	if _, ok := h.Guard("b"); ok || h.Hosts() != 2 {
		t.Errorf("after a third host: b kept %v, %d hosts; want b forgotten, 2 hosts", ok, h.Hosts())
	}
	clk.Add(2 * time.Minute) // a is idle past a minute: a new guard, closed
	if err := allowHost(t, h, "a", nil); err != nil || made["a"] != 2 {
		t.Errorf("a after idling: %v, made %d times; want a new guard that admits", err, made["a"])
	}
	if len(h.permits) != 0 {
		t.Errorf("%d permits held after every call was recorded", len(h.permits))
	}
}

// Bad settings, and a function that returns an unusable guard, are
// reported as ErrInvalidConfiguration, naming them.
func TestPerHostInvalid(t *testing.T) {
	for _, c := range []struct {
		h    *HostGuard
		want string
	}{
		{PerHost(nil), "PerHost was given a nil function"},
		{PerHost(func(string) guard.Guard { return breaker.New() }, WithMaxHosts(0)), "WithMaxHosts(0)"},
		{PerHost(func(string) guard.Guard { return breaker.New() }, WithIdleHost(0)), "WithIdleHost(0s)"},
		{PerHost(func(string) guard.Guard { return breaker.New() }, WithHostClock(nil)), "WithClock was given a nil clock"},
		{PerHost(func(string) guard.Guard { return breaker.New() }, nil), "nil"},
		{&HostGuard{}, "PerHost"},
	} {
		err := c.h.Validate()
		if !errors.Is(err, ErrInvalidConfiguration) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate: %v; want ErrInvalidConfiguration naming %q", err, c.want)
		}
		if _, err := c.h.Allow(context.Background(), guard.Call{Attempt: 1}); !errors.Is(err, ErrInvalidConfiguration) {
			t.Errorf("Allow: %v; want the configuration error", err)
		}
	}
	for _, g := range []guard.Guard{nil, (*breaker.Breaker)(nil), breaker.New(breaker.WithConsecutiveFailures(0))} {
		h := PerHost(func(string) guard.Guard { return g })
		if err := allowHost(t, h, "a", nil); !errors.Is(err, ErrInvalidConfiguration) || !errors.Is(err, backoff.ErrRefused) {
			t.Errorf("a function returning %#v: %v; want a refusal matching ErrInvalidConfiguration", g, err)
		}
	}
}
