package httpshed

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/hop"
	"github.com/herdsafe/backoff/httpretry"
)

// zero makes an httpretry Transport retry at once, so that a chain of
// loopback servers spends no time waiting.
var zero = httpretry.WithBackOff(&backoff.ZeroBackOff{})

// The attempt and the caller's deadline travel with every attempt of an
// httpretry client, and the server's handler runs with the caller's
// deadline, on the Shedder's clock.
func TestHopHeadersArrive(t *testing.T) {
	clk := clock.NewMock()
	type seen struct {
		caller   hop.Caller
		deadline time.Duration
	}
	var mu sync.Mutex
	var got []seen
	srv, base := serve(t, New(bulkhead.New(10), WithClock(clk)).Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, _ := r.Context().Deadline()
		mu.Lock()
		got = append(got, seen{hop.ReadHeader(r.Header), d.Sub(clk.Now())})
		mu.Unlock()
		w.WriteHeader(http.StatusServiceUnavailable)
	})))
	rt := httpretry.NewTransport(base, httpretry.WithClock(clk), zero)
	ctx, cancel := clk.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get(hop.StopHeader) != "" {
		t.Errorf("got %s, %s %q; want the last 503, with no stop: the server retried nothing", resp.Status, hop.StopHeader, resp.Header.Get(hop.StopHeader))
	}
	if len(got) != 3 {
		t.Fatalf("the server saw %d requests, want 3", len(got))
	}
	for i, s := range got {
		want := hop.Caller{Attempt: i + 1, Timeout: 5 * time.Second, HasTimeout: true}
		if s.caller != want || s.deadline != 5*time.Second {
			t.Errorf("request %d told %+v and ran with %v left; want %+v and 5s", i+1, s.caller, s.deadline, want)
		}
	}

	// Without a deadline, and with the headers turned off.
	got = nil
	for _, rt := range []http.RoundTripper{
		httpretry.NewTransport(base, zero, httpretry.WithMaxTries(1)),
		httpretry.NewTransport(base, zero, httpretry.WithMaxTries(1), httpretry.WithHopHeaders(false)),
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		req.Header.Set(hop.AttemptHeader, "7") // the caller's own value is replaced, or not sent
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	want := []hop.Caller{{Attempt: 1}, {Attempt: 7}}
	for i := range want {
		if got[i].caller != want[i] {
			t.Errorf("request %d told %+v, want %+v", i, got[i].caller, want[i])
		}
	}
}

// Under pressure, a retry is refused before the guard is asked, with the
// stop signal, while a first call is served; an httpretry client stops at
// once on it.
func TestShedsRetriesFirst(t *testing.T) {
	b := bulkhead.New(5)
	var permits []guard.Permit
	for range 4 { // 4 of 5 places taken: pressure 0.8
		p, err := b.Allow(context.Background(), guard.Call{Attempt: 1})
		if err != nil {
			t.Fatal(err)
		}
		permits = append(permits, p)
	}
	var calls atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path == "/busy" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	srv, base := serve(t, New(b).Handler(h))
	send := func(path string, attempt int) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set(hop.AttemptHeader, strconv.Itoa(attempt))
		resp, err := base.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	if resp := send("/", 2); resp.StatusCode != 503 || resp.Header.Get(hop.StopHeader) != hop.ReasonOverloaded || calls.Load() != 0 {
		t.Errorf("a retry under pressure got %s, %q, handler ran %d times; want 503, overloaded, not run", resp.Status, resp.Header.Get(hop.StopHeader), calls.Load())
	}
	if resp := send("/", 1); resp.StatusCode != 200 || calls.Load() != 1 {
		t.Errorf("a first call under pressure got %s; want it served", resp.Status)
	}

	// An httpretry client: its first attempt fails, its retry is shed
	// with the signal, and it stops there.
	resp, _ := get(t, httpretry.NewTransport(base, zero), srv.URL+"/busy")
	if resp.StatusCode != 503 || resp.Header.Get(hop.StopHeader) != hop.ReasonOverloaded || calls.Load() != 2 {
		t.Errorf("the client got %s, %q after %d handler runs; want the shed retry's 503 after 1 more run", resp.Status, resp.Header.Get(hop.StopHeader), calls.Load()-1)
	}

	b.Record(permits[0], guard.Outcome{}) // pressure 0.6
	if resp := send("/", 2); resp.StatusCode != 200 {
		t.Errorf("a retry below the pressure got %s; want it served", resp.Status)
	}
	b.Record(permits[1], guard.Outcome{})
	b.Record(permits[2], guard.Outcome{})
	b.Record(permits[3], guard.Outcome{})

	// +Inf leaves retries to the guard.
	full := bulkhead.New(1)
	p, _ := full.Allow(context.Background(), guard.Call{Attempt: 1})
	defer full.Record(p, guard.Outcome{})
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set(hop.AttemptHeader, "2")
	New(full, WithRetryPressure(math.Inf(1))).Handler(h).ServeHTTP(rec, r)
	if rec.Code != 503 || rec.Header().Get(hop.StopHeader) != "" || rec.Header().Get("Retry-After") == "" {
		t.Errorf("with +Inf, a retry to a full bulkhead got %d, stop %q; want the guard's refusal, with Retry-After and no stop", rec.Code, rec.Header().Get(hop.StopHeader))
	}
}

// A request whose caller will wait less than the queue's time is refused
// at once, with the stop signal, without waiting in the queue; once the
// queue is gone, it is served.
func TestRefusesWhatNobodyWaitsFor(t *testing.T) {
	clk := clock.NewMock()
	b := bulkhead.New(1, bulkhead.WithQueue(10))
	release := map[string]chan struct{}{"/a": make(chan struct{}), "/b": make(chan struct{})}
	var ran sync.Map
	shed := New(b, WithClock(clk))
	h := shed.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ran.Store(r.URL.Path, true)
		if ch := release[r.URL.Path]; ch != nil {
			<-ch
		}
	}))
	serveAsync := func(path string, wg *sync.WaitGroup) {
		wg.Go(func() { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil)) })
	}
	late := func(ms string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "/late", nil)
		r.Header.Set(hop.TimeoutHeader, ms)
		h.ServeHTTP(rec, r)
		return rec
	}
	var wg sync.WaitGroup
	serveAsync("/a", &wg)
	waitFor(t, func() bool { return b.Stats().InFlight == 1 })
	serveAsync("/b", &wg)
	waitFor(t, func() bool { return b.Stats().Queued == 1 })
	clk.Add(2 * time.Second) // /b waits 2 s in the queue
	close(release["/a"])
	waitFor(t, func() bool { _, ok := ran.Load("/b"); return ok })
	serveAsync("/c", &wg) // queued behind /b
	waitFor(t, func() bool { return b.Stats().Queued == 1 })
	if got := shed.QueueTime(); got != 2*time.Second {
		t.Errorf("QueueTime = %v, want the 2 s /b waited", got)
	}
	for _, ms := range []string{"1000", "0"} {
		if rec := late(ms); rec.Code != 503 || rec.Header().Get(hop.StopHeader) != hop.ReasonDeadline {
			t.Errorf("a caller who waits %s ms got %d, %q; want 503, deadline", ms, rec.Code, rec.Header().Get(hop.StopHeader))
		}
	}
	if _, ok := ran.Load("/late"); ok || b.Stats().Queued != 1 {
		t.Error("a late request reached the queue or the handler")
	}
	close(release["/b"])
	wg.Wait()
	if got := shed.QueueTime(); got != 0 {
		t.Errorf("QueueTime with no queue = %v, want 0", got)
	}
	if rec := late("1000"); rec.Code != 200 {
		t.Errorf("with no queue, a caller who waits 1 s got %d; want it served", rec.Code)
	}
}

// tier is a server of a chain: its handler calls next through an httpretry
// Transport of tries attempts, with the request's context, and answers
// with the status it got. Built with the library, it runs behind a
// Shedder; without, it is a bare handler. It counts the requests it gets.
func tier(t *testing.T, next string, tries uint, withLibrary bool, calls *atomic.Int64, opts ...Option) string {
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	rt := httpretry.NewTransport(base, zero, httpretry.WithMaxTries(tries))
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, next, nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
	})
	if withLibrary {
		h = New(bulkhead.New(100), opts...).Handler(h)
	}
	srv, _ := serve(t, h)
	return srv.URL
}

// A chain of three tiers built with httpretry and httpshed, whose bottom
// fails: without the signal, the bottom sees 3 × 3 × 3 = 27 calls for one
// user call; with it, only the lowest tier that retries does, and the
// bottom sees 3.
func TestChainDoesNotMultiply(t *testing.T) {
	cases := []struct {
		name        string
		withLibrary bool
		tries       [2]uint // of the upper tier and of the middle tier
		bottom      int64
		stop        string
		opts        []Option
	}{
		{"bare_tiers", false, [2]uint{3, 3}, 27, "", nil},
		{"with_the_signal", true, [2]uint{3, 3}, 3, hop.ReasonExhausted, nil},
		{"middle_tier_without_retries", true, [2]uint{3, 1}, 3, hop.ReasonExhausted, nil},
		{"without_tier_tracking", true, [2]uint{3, 3}, 27, "", []Option{WithTier(false)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var bottom, middle, upper atomic.Int64
			srv, base := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				bottom.Add(1)
				w.WriteHeader(http.StatusServiceUnavailable)
			}))
			url := tier(t, srv.URL, c.tries[1], c.withLibrary, &middle, c.opts...)
			url = tier(t, url, c.tries[0], c.withLibrary, &upper, c.opts...)
			resp, _ := get(t, httpretry.NewTransport(base, zero), url) // the user's client: 3 tries
			if resp.StatusCode != 503 || resp.Header.Get(hop.StopHeader) != c.stop {
				t.Errorf("the user got %s, %s %q; want 503, %q", resp.Status, hop.StopHeader, resp.Header.Get(hop.StopHeader), c.stop)
			}
			if bottom.Load() != c.bottom {
				t.Errorf("the bottom saw %d calls for one user call, want %d (tiers saw %d and %d)", bottom.Load(), c.bottom, upper.Load(), middle.Load())
			}
		})
	}
}

// The new settings refuse what they cannot use, naming themselves.
func TestHopSettingsInvalid(t *testing.T) {
	for _, c := range []struct {
		opt  Option
		want string
	}{
		{WithRetryPressure(0), "WithRetryPressure(0)"},
		{WithRetryPressure(-1), "WithRetryPressure(-1)"},
		{WithRetryPressure(math.NaN()), "WithRetryPressure(NaN)"},
		{WithClock(nil), "WithClock was given a nil clock"},
		{WithClock((*clock.Mock)(nil)), "WithClock was given a nil *clock.Mock"},
	} {
		err := New(bulkhead.New(1), c.opt).Validate()
		if !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate: %v; want ErrInvalidConfiguration naming %q", err, c.want)
		}
	}
	if err := New(bulkhead.New(1), WithRetryPressure(math.Inf(1)), WithClock(clock.NewMock())).Validate(); err != nil {
		t.Error(err)
	}
}
