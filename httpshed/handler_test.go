package httpshed

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/chaos"
	"github.com/herdsafe/backoff/httpretry"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
)

// A full bulkhead sheds a request at once, with 503 and a Retry-After,
// without calling the handler; once the slot is free, requests are served
// again.
func TestShedsWhenFull(t *testing.T) {
	h := newHolder()
	b := bulkhead.New(1)
	srv, base := serve(t, New(b, fixed(0)).Handler(h))
	first := make(chan string, 1)
	go func() {
		body, err := fetch(base, srv.URL)
		if err != nil {
			body = err.Error()
		}
		first <- body
	}()
	<-h.in
	resp, body := get(t, base, srv.URL)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || !strings.Contains(body, "Service Unavailable") {
		t.Errorf("a request to the full server got %s, Retry-After %q, body %q; want 503, 1, Service Unavailable",
			resp.Status, resp.Header.Get("Retry-After"), body)
	}
	close(h.release)
	if body := <-first; body != "served" {
		t.Errorf("the first request got %q", body)
	}
	if resp, body := get(t, base, srv.URL); resp.StatusCode != 200 || body != "served" {
		t.Errorf("a request once the slot was free got %s %q", resp.Status, body)
	}
	if h.calls.Load() != 2 || b.Stats().InFlight != 0 || b.Stats().Refused != 1 {
		t.Errorf("the handler ran %d times; bulkhead %+v; want 2 runs, nothing in flight, 1 refusal", h.calls.Load(), b.Stats())
	}
}

// The guard is told how the handler ended: a 5xx is a failure, any other
// status a success, a client that went away neither, and a panic is
// recorded before it goes on.
func TestGuardSeesTheOutcome(t *testing.T) {
	cb := breaker.New(breaker.WithConsecutiveFailures(100))
	b := bulkhead.New(10)
	in := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/fail":
			http.Error(w, "oops", http.StatusInternalServerError)
		case "/missing":
			http.NotFound(w, r)
		case "/implicit":
		case "/panic":
			panic(http.ErrAbortHandler)
		case "/gone":
			close(in)
			<-r.Context().Done()
		}
	})
	srv, base := serve(t, New(b).Handler(New(cb).Handler(h)))
	for _, path := range []string{"/fail", "/missing", "/implicit"} {
		get(t, base, srv.URL+path)
	}
	if c := cb.Counts(); c.Failures != 1 || c.Successes != 2 {
		t.Errorf("the breaker counts %+v; want the 500 a failure, the 404 and the 200 successes", c)
	}
	// A POST: net/http would send a GET again on a fresh connection.
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/panic", nil)
	if _, err := base.RoundTrip(req); err == nil {
		t.Error("a handler that panicked answered")
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/gone", nil)
	done := make(chan error, 1)
	go func() {
		_, err := base.RoundTrip(req)
		done <- err
	}()
	<-in
	cancel()
	<-done
	waitFor(t, func() bool { return b.Stats().InFlight == 0 })
	if c := cb.Counts(); c.Failures != 2 || c.Successes != 2 || c.Neutral != 1 {
		t.Errorf("the breaker counts %+v; want the panic a failure and the abandoned request neutral", c)
	}
}

// A guard's injected failure (guard.Failure) is answered with the status,
// without Retry-After and without calling the handler.
func TestInjectedFailure(t *testing.T) {
	injector := chaos.New(chaos.Config{ErrorProbability: 1, InjectedError: errors.New("injected")})
	called := false
	srv, base := serve(t, New(injector).Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true })))
	resp, _ := get(t, base, srv.URL)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "" || called {
		t.Errorf("got %s, Retry-After %q, handler called %v; want 503 without Retry-After, not called", resp.Status, resp.Header.Get("Retry-After"), called)
	}
}

// WithStatus(429) answers refusals with 429 and Retry-After.
func TestStatus429(t *testing.T) {
	cb := breaker.New(breaker.WithConsecutiveFailures(1), breaker.WithOpenDuration(5*time.Second))
	srv, base := serve(t, New(cb, WithStatus(http.StatusTooManyRequests), fixed(0)).Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
	})))
	get(t, base, srv.URL) // trips it
	resp, _ := get(t, base, srv.URL)
	if ra := resp.Header.Get("Retry-After"); resp.StatusCode != 429 || (ra != "5" && ra != "4") {
		t.Errorf("got %s, Retry-After %q; want 429 and the time until the probe, 5 s", resp.Status, ra)
	}
}

// The handler can flush, and reach the connection's controls, through the
// ResponseWriter it receives.
func TestResponseController(t *testing.T) {
	srv, base := serve(t, New(bulkhead.New(1)).Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if err := rc.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		io.WriteString(w, "a")
		w.(http.Flusher).Flush()
		io.WriteString(w, "b")
	})))
	if resp, body := get(t, base, srv.URL); resp.StatusCode != 200 || body != "ab" {
		t.Errorf("got %s %q", resp.Status, body)
	}
}

// Bad input never panics: Validate names it, and the handler answers 500
// with it, without calling next.
func TestInvalid(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("next was called") })
	cases := []struct {
		name string
		h    http.Handler
		err  error
		want string
	}{
		{"nil_guard", New(nil).Handler(next), New(nil).Validate(), "httpshed: New was given a nil guard.Guard"},
		{"typed_nil_guard", New((*bulkhead.Bulkhead)(nil)).Handler(next), New((*bulkhead.Bulkhead)(nil)).Validate(), "nil guard.Guard"},
		{"invalid_guard", New(bulkhead.New(0)).Handler(next), New(bulkhead.New(0)).Validate(), "httpshed: New was given a *bulkhead.Bulkhead that cannot be used: bulkhead: New(0)"},
		{"nil_option", New(bulkhead.New(1), nil).Handler(next), New(bulkhead.New(1), nil).Validate(), "httpshed: New was given a nil Option"},
		{"status_200", New(bulkhead.New(1), WithStatus(200)).Handler(next), New(bulkhead.New(1), WithStatus(200)).Validate(), "httpshed: WithStatus(200): a Shedder answers 503 or 429"},
		{"status_999", New(bulkhead.New(1), WithStatus(999)).Handler(next), New(bulkhead.New(1), WithStatus(999)).Validate(), "httpshed: WithStatus(999): not an HTTP status"},
		{"status_negative", New(bulkhead.New(1), WithStatus(-503)).Handler(next), New(bulkhead.New(1), WithStatus(-503)).Validate(), "not an HTTP status"},
		{"short_base", New(bulkhead.New(1), WithRetryAfter(500*time.Millisecond)).Handler(next), New(bulkhead.New(1), WithRetryAfter(500*time.Millisecond)).Validate(), "httpshed: WithRetryAfter(500ms): Retry-After counts whole seconds"},
		{"negative_base", New(bulkhead.New(1), WithRetryAfter(-time.Second)).Handler(next), New(bulkhead.New(1), WithRetryAfter(-time.Second)).Validate(), "httpshed: WithRetryAfter(-1s)"},
		{"max_below_base", New(bulkhead.New(1), WithMaxRetryAfter(time.Millisecond)).Handler(next), New(bulkhead.New(1), WithMaxRetryAfter(time.Millisecond)).Validate(), "httpshed: WithMaxRetryAfter(1ms) is shorter than the base wait, WithRetryAfter(1s)"},
		{"nil_random", New(bulkhead.New(1), WithRandom(nil)).Handler(next), New(bulkhead.New(1), WithRandom(nil)).Validate(), "httpshed: WithRandom was given a nil function"},
		{"nil_next", New(bulkhead.New(1)).Handler(nil), New(bulkhead.New(1)).Handler(nil).(*handler).err, "httpshed: Shedder.Handler was given a nil http.Handler"},
		{"typed_nil_next", New(bulkhead.New(1)).Handler(http.HandlerFunc(nil)), New(bulkhead.New(1)).Handler(http.HandlerFunc(nil)).(*handler).err, "nil http.Handler"},
		{"zero_shedder", (&Shedder{}).Handler(next), (&Shedder{}).Validate(), "httpshed: a zero or nil Shedder; make one with New"},
		{"nil_shedder", (*Shedder)(nil).Handler(next), (*Shedder)(nil).Validate(), "httpshed: a zero or nil Shedder; make one with New"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !errors.Is(c.err, backoff.ErrInvalidConfiguration) || !strings.HasPrefix(c.err.Error(), "backoff: invalid configuration: httpshed: ") || !strings.Contains(c.err.Error(), c.want) {
				t.Errorf("Validate: %v; want ErrInvalidConfiguration naming %q", c.err, c.want)
			}
			srv, base := serve(t, c.h)
			resp, body := get(t, base, srv.URL)
			if resp.StatusCode != 500 || !strings.Contains(body, c.want) {
				t.Errorf("got %s %q; want 500 with the error", resp.Status, body)
			}
		})
	}
	if got := (*Shedder)(nil).RetryAfter(bulkhead.ErrBulkheadFull); got != DefaultRetryAfter {
		t.Errorf("a nil Shedder's RetryAfter = %v", got)
	}
}

// The loop closed on loopback: a client of httpretry told to come back
// waits what the Shedder said, spread by its own extra, and is served.
func TestHTTPRetryClientObeys(t *testing.T) {
	h := newHolder()
	b := bulkhead.New(1)
	srv, base := serve(t, New(b, fixed(0)).Handler(h))
	first := make(chan error, 1)
	go func() {
		_, err := fetch(base, srv.URL)
		first <- err
	}()
	defer func() {
		if err := <-first; err != nil {
			t.Error(err)
		}
	}()
	<-h.in
	clk := spectest.NewClock()
	rt := httpretry.NewTransport(base, httpretry.WithClock(clk), httpretry.WithRandom(func() float64 { return 0.5 }))
	var resp *http.Response
	var body string
	waits := spectest.Drive(t, clk, func(_ int, d time.Duration) {
		close(h.release) // the first request ends while the client waits
		// and gives its place back, after its handler has returned
		waitFor(t, func() bool { return b.Stats().InFlight == 0 })
		clk.Add(d)
	}, func() { resp, body = get(t, rt, srv.URL) })
	if resp.StatusCode != 200 || body != "served" {
		t.Errorf("got %s %q", resp.Status, body)
	}
	if len(waits) != 1 || waits[0] != 1500*time.Millisecond {
		t.Errorf("the client waited %v; want the 1 s the server said, spread by half a second", waits)
	}
}
