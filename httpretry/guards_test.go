package httpretry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/chaos"
	"github.com/herdsafe/backoff/guard"
)

// A breaker inside the retry stage sees each attempt: a 503 is a failure,
// a 404 a success, and an attempt the caller cancelled neither.
func TestBreakerSeesEachAttempt(t *testing.T) {
	in, release := make(chan struct{}), make(chan struct{})
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Path {
		case "/missing":
			http.NotFound(w, r)
		case "/slow":
			close(in)
			<-release
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	cb := breaker.New(breaker.WithConsecutiveFailures(100))
	rt := NewTransport(srv.base, noWait, WithAttemptGuards(cb))

	resp, err := get(t, rt, srv.URL+"/busy")
	if err != nil || resp.StatusCode != 503 {
		t.Fatalf("got %v, %v; want the last 503", resp, err)
	}
	if c := cb.Counts(); c.Failures != DefaultMaxTries || c.Successes != 0 {
		t.Errorf("after three 503s the breaker counts %+v; want 3 failures", c)
	}

	resp, err = get(t, rt, srv.URL+"/missing")
	if err != nil || resp.StatusCode != 404 {
		t.Fatalf("got %v, %v; want the 404", resp, err)
	}
	if c := cb.Counts(); c.Failures != DefaultMaxTries || c.Successes != 1 {
		t.Errorf("after a 404 the breaker counts %+v; want 1 success", c)
	}

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/slow", nil)
	done := goRoundTrip(rt, req)
	<-in
	cancel()
	r := <-done
	close(release)
	if r.err == nil || !errors.Is(r.err, context.Canceled) {
		t.Fatalf("a cancelled request returned %v, %v", r.resp, r.err)
	}
	if c := cb.Counts(); c.Failures != DefaultMaxTries || c.Successes != 1 || c.Neutral != 1 {
		t.Errorf("after a cancelled request the breaker counts %+v; want it neutral", c)
	}
}

// An open breaker refuses the request before anything is sent: the error's
// Cause matches backoff.ErrRefused and breaker.ErrCircuitOpen, and the
// body is closed.
func TestOpenBreakerRefuses(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	cb := breaker.New(breaker.WithConsecutiveFailures(2), breaker.WithOpenDuration(time.Hour))
	rt := NewTransport(srv.base, noWait, WithAttemptGuards(cb))

	// The first request trips it on its second attempt: the third is
	// refused, and the response drained for it is gone.
	_, err := get(t, rt, srv.URL)
	e := asBackoffError(t, err)
	var serr *StatusError
	if !errors.Is(e.Cause, backoff.ErrRefused) || !errors.Is(e.Cause, breaker.ErrCircuitOpen) ||
		!errors.As(e.LastErr, &serr) || serr.StatusCode != 503 || e.Attempts != 2 {
		t.Fatalf("got %+v; want a refusal by the open circuit after 2 attempts, LastErr the 503", e)
	}

	body := &trackedBody{Reader: strings.NewReader("x")}
	req, _ := http.NewRequest(http.MethodPut, srv.URL, body)
	req.Header.Set("Idempotency-Key", "k")
	_, err = roundTrip(t, rt, req)
	e = asBackoffError(t, err)
	if !errors.Is(err, breaker.ErrCircuitOpen) || e.Attempts != 0 || e.LastErr != nil {
		t.Errorf("got %+v; want a refusal with no attempt", e)
	}
	if srv.hits.Load() != 2 || !body.closed.Load() {
		t.Errorf("%d requests sent, body closed %v; want 2 and true", srv.hits.Load(), body.closed.Load())
	}
}

// A budget inside the retry stage refuses retries, never first attempts.
func TestBudgetRefusesRetriesOnly(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	b := budget.NewTokenBucket(budget.WithMaxTokens(2)) // one failure leaves no retry
	rt := NewTransport(srv.base, noWait, WithAttemptGuards(b))
	for i := range 3 {
		_, err := get(t, rt, srv.URL)
		e := asBackoffError(t, err)
		if !errors.Is(e.Cause, budget.ErrBudgetExhausted) || e.Attempts != 1 {
			t.Fatalf("request %d: %+v; want the retry refused by the budget after 1 attempt", i, e)
		}
	}
	if srv.hits.Load() != 3 {
		t.Errorf("%d requests sent, want the 3 first attempts", srv.hits.Load())
	}
}

// A bulkhead outside the retry stage bounds the requests in flight: one
// that finds it full is refused, and sends nothing.
func TestBulkheadBoundsRequestsInFlight(t *testing.T) {
	in, release := make(chan struct{}), make(chan struct{})
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			close(in)
			<-release
		}
	})
	bh := bulkhead.New(1)
	rt := NewTransport(srv.base, noWait, WithRequestGuards(bh))
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	first := goRoundTrip(rt, req)
	<-in
	_, err := get(t, rt, srv.URL)
	close(release)
	if !errors.Is(err, bulkhead.ErrBulkheadFull) || !errors.Is(err, backoff.ErrRefused) {
		t.Errorf("the second request got %v; want a refusal by the full bulkhead", err)
	}
	r := <-first
	if r.err != nil {
		t.Fatal(r.err)
	}
	r.resp.Body.Close()
	if srv.hits.Load() != 1 || bh.Stats().InFlight != 0 {
		t.Errorf("%d requests sent, %d in flight; want 1 and 0", srv.hits.Load(), bh.Stats().InFlight)
	}
}

// A chaos guard inside the retry stage fails attempts without running
// them; the Transport counts its attempts as the stage does, so the last
// response is still handed back unread.
func TestChaosInsideTheRetryStage(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	n := 0
	injector := failFirst{n: &n}
	rt := NewTransport(srv.base, noWait, WithAttemptGuards(injector))
	resp, err := get(t, rt, srv.URL)
	if err != nil || resp.StatusCode != 503 || srv.hits.Load() != DefaultMaxTries-1 {
		t.Fatalf("got %v, %v after %d requests; want the last 503 after %d", resp, err, srv.hits.Load(), DefaultMaxTries-1)
	}
	if body := readBody(t, resp); body != "2" {
		t.Errorf("got the body %q, want the last response's, unread", body)
	}
}

// failFirst fails the first call it is asked to admit, as chaos does.
type failFirst struct{ n *int }

func (g failFirst) Allow(context.Context, guard.Call) (guard.Permit, error) {
	*g.n++
	if *g.n == 1 {
		return guard.Permit{}, guard.Failure(errors.New("injected"))
	}
	return guard.Permit{}, nil
}
func (failFirst) Record(guard.Permit, guard.Outcome) {}

// The replay rules, the drain and the caller's last response are the same
// with guards.
func TestGuardsKeepTheTransportsRules(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	rt := NewTransport(srv.base, noWait, WithMaxTries(5), WithRequestGuards(bulkhead.New(10)), WithAttemptGuards(breaker.New(breaker.WithConsecutiveFailures(100))))
	resp, err := do(t, rt, context.Background(), http.MethodPost, srv.URL, strings.NewReader("x"))
	if err != nil || resp.StatusCode != 503 || srv.hits.Load() != 1 {
		t.Fatalf("a POST got %v, %v after %d requests; want the first 503, not retried", resp, err, srv.hits.Load())
	}
	readBody(t, resp)
	resp, err = get(t, rt, srv.URL)
	if err != nil || resp.StatusCode != 503 || srv.hits.Load() != 6 {
		t.Fatalf("a GET got %v, %v after %d requests; want the fifth 503", resp, err, srv.hits.Load())
	}
	if body := readBody(t, resp); body != "6" {
		t.Errorf("got the body %q; want the last response's, unread", body)
	}
	if srv.conns.Load() != 1 {
		t.Errorf("%d connections for 6 requests; want 1: intermediate responses are drained", srv.conns.Load())
	}
}

// WithAttemptTimeout bounds each attempt until its headers, but the
// caller reads the body after RoundTrip returned, when the timeout has
// cancelled the attempt's context (pitfall 28): the Transport's requests
// follow their request's context then. A cancellation of that context still ends the
// read. Over HTTP/1 and HTTP/2.
func TestAttemptTimeoutLeavesTheBodyReadable(t *testing.T) {
	const size = 1 << 20
	chunk := strings.Repeat("x", 64<<10)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		for i := range size / len(chunk) {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
			if i == 0 && r.URL.Path == "/stall" {
				// The rest comes only after the client has gone (or after
				// a few seconds, which a passing test never reaches).
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
				case <-time.After(5 * time.Second):
				}
			}
		}
	})
	h1 := httptest.NewServer(h)
	defer h1.Close()
	h2 := httptest.NewUnstartedServer(h)
	h2.EnableHTTP2 = true
	h2.Config.ErrorLog = log.New(io.Discard, "", 0)
	h2.StartTLS()
	defer h2.Close()
	for _, srv := range []struct {
		proto string
		url   string
		base  *http.Transport
	}{
		{"HTTP/1.1", h1.URL, &http.Transport{}},
		{"HTTP/2.0", h2.URL, h2.Client().Transport.(*http.Transport)},
	} {
		defer srv.base.CloseIdleConnections()
		for _, c := range []struct {
			name string
			opts []Option
		}{
			{"timeout", []Option{noWait, WithAttemptTimeout(time.Minute)}},
			{"timeout_and_guards", []Option{noWait, WithAttemptTimeout(time.Minute), WithAttemptGuards(breaker.New())}},
		} {
			t.Run(srv.proto+"/"+c.name, func(t *testing.T) {
				rt := NewTransport(srv.base, c.opts...)
				resp, err := get(t, rt, srv.url)
				if err != nil {
					t.Fatal(err)
				}
				if resp.Proto != srv.proto {
					t.Errorf("the response came over %s, want %s", resp.Proto, srv.proto)
				}
				n, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || n != size {
					t.Errorf("read %d bytes of %d, error %v: the body was cut off", n, size, err)
				}

				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				resp, err = do(t, rt, ctx, http.MethodGet, srv.url+"/stall", nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := io.ReadFull(resp.Body, make([]byte, len(chunk))); err != nil {
					t.Fatalf("reading the first chunk: %v", err)
				}
				cancel()
				if n, err := io.Copy(io.Discard, resp.Body); !errors.Is(err, context.Canceled) || n >= size-int64(len(chunk)) {
					t.Errorf("read %d more bytes, error %v after the request was cancelled; want context.Canceled", n, err)
				}
				resp.Body.Close()
			})
		}
	}
}

// A per-attempt timeout ends a slow attempt, which is retried.
func TestAttemptTimeoutBoundsEachAttempt(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		io.WriteString(w, "fast")
	})
	rt := NewTransport(srv.base, noWait, WithAttemptTimeout(50*time.Millisecond))
	resp, err := get(t, rt, srv.URL)
	if err != nil || srv.hits.Load() != 2 {
		t.Fatalf("got %v, %v after %d requests; want the second attempt's answer", resp, err, srv.hits.Load())
	}
	if body := readBody(t, resp); body != "fast" {
		t.Errorf("body %q", body)
	}
}

// A guard that cannot be used, and a bad timeout, are reported as
// ErrInvalidConfiguration naming the option, before anything is sent.
func TestGuardOptionsInvalid(t *testing.T) {
	cases := []struct {
		name string
		opts []Option
		want string
	}{
		{"nil_request_guard", []Option{WithRequestGuards(bulkhead.New(1), nil)}, "httpretry: WithRequestGuards was given a nil guard.Guard (guard 2)"},
		{"typed_nil_attempt_guard", []Option{WithAttemptGuards((*breaker.Breaker)(nil))}, "httpretry: WithAttemptGuards was given a nil *breaker.Breaker (guard 1)"},
		{"unusable_attempt_guard", []Option{WithAttemptGuards(PerHost(nil))}, "httpretry: WithAttemptGuards was given a *httpretry.HostGuard that cannot be used (guard 1): httpretry: PerHost was given a nil function"},
		{"zero_guard", []Option{WithRequestGuards(&HostGuard{})}, "httpretry: WithRequestGuards was given a *httpretry.HostGuard that cannot be used (guard 1)"},
		{"negative_attempt_timeout", []Option{WithAttemptTimeout(-time.Second)}, "httpretry: WithAttemptTimeout was given a negative duration (-1s)"},
		{"nil_random", []Option{WithRandom(nil)}, "httpretry: WithRandom was given a nil function"},
	}
	srv := statusServer(t, 200)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { invalidRoundTrip(t, srv, c.opts, c.want) })
	}
	if srv.hits.Load() != 0 {
		t.Errorf("%d requests were sent", srv.hits.Load())
	}
}

// Guards are placed where their option says, in the order given: the
// request guards once a request, outermost first, the attempt guards once
// an attempt.
func TestGuardsPlacement(t *testing.T) {
	srv := flakyServer(t, 2, http.StatusServiceUnavailable)
	var log []string
	g := func(name string) guard.Guard { return &logGuard{name: name, log: &log} }
	rt := NewTransport(srv.base, noWait,
		WithRequestGuards(g("r1")), WithRequestGuards(g("r2")),
		WithAttemptGuards(g("a1"), g("a2")))
	resp, err := get(t, rt, srv.URL)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("got %v, %v; want the third attempt's 200", resp, err)
	}
	resp.Body.Close()
	want := "r1 r2 a1#1 a2#1 /a2 /a1 a1#2 a2#2 /a2 /a1 a1#3 a2#3 /a2 /a1 /r2 /r1"
	if got := strings.Join(log, " "); got != want {
		t.Errorf("the guards saw\n%s\nwant\n%s", got, want)
	}
}

// logGuard logs each admission, with the attempt's number when it is not
// the first, and each record.
type logGuard struct {
	name string
	log  *[]string
}

func (g *logGuard) Allow(_ context.Context, c guard.Call) (guard.Permit, error) {
	if g.name[0] == 'a' {
		*g.log = append(*g.log, fmt.Sprintf("%s#%d", g.name, c.Attempt))
	} else {
		*g.log = append(*g.log, g.name)
	}
	return guard.Permit{}, nil
}

func (g *logGuard) Record(guard.Permit, guard.Outcome) { *g.log = append(*g.log, "/"+g.name) }

// AttemptStatus works with guards, and a guarded Transport serves several
// requests at once.
func TestGuardedTransportIsObserved(t *testing.T) {
	srv := flakyServer(t, 1, http.StatusServiceUnavailable)
	statuses := &statusRecorder{}
	rt := NewTransport(srv.base, noWait, WithInstrumenter(statuses), WithAttemptGuards(chaos.New(chaos.Config{})))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
			if resp, err := rt.RoundTrip(req); err == nil {
				resp.Body.Close()
			} else {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, n503 := statuses.all(), 0
	for _, s := range got {
		if !s.ok || s.status != 200 && s.status != 503 {
			t.Errorf("an attempt saw the status %+v", s)
		}
		if s.status == 503 {
			n503++
		}
	}
	if len(got) != 5 || n503 != 1 {
		t.Errorf("statuses %+v; want one 503 and four 200s", got)
	}
}

// A guard's refusal's error redacts the URL's password and query as the
// Transport's own errors do.
func TestRefusalsAreRedacted(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	cb := breaker.New(breaker.WithConsecutiveFailures(2), breaker.WithOpenDuration(time.Hour))
	rt := NewTransport(srv.base, noWait, WithAttemptGuards(cb))
	url := strings.Replace(srv.URL, "http://", "http://user:hunter2@", 1) + "/?token=s3cret"
	_, err := get(t, rt, url)
	if !errors.Is(err, breaker.ErrCircuitOpen) {
		t.Fatalf("got %v; want the open circuit", err)
	}
	for _, msg := range []string{err.Error(), fmt.Sprintf("%+v", err)} {
		if strings.Contains(msg, "hunter2") || strings.Contains(msg, "s3cret") {
			t.Errorf("the error leaks a secret: %s", msg)
		}
	}
}

// A spent budget refuses the retry of a 503 that names a Retry-After at
// once: the caller does not wait the server's 5 s for a retry that cannot
// be made.
func TestSpentBudgetDoesNotWaitTheRetryAfter(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	clk := newSkipClock()
	b := budget.NewTokenBucket(budget.WithMaxTokens(2)) // one failure leaves no retry
	rt := NewTransport(srv.base, WithClock(clk), WithAttemptGuards(b))
	_, err := get(t, rt, srv.URL)
	e := asBackoffError(t, err)
	if !errors.Is(e.Cause, budget.ErrBudgetExhausted) || e.Attempts != 1 {
		t.Fatalf("%+v; want the retry refused by the budget after 1 attempt", e)
	}
	clk.mu.Lock()
	defer clk.mu.Unlock()
	for _, d := range clk.waits {
		if d > 0 {
			t.Fatalf("the request waited %v (waits %v) for a retry its spent budget refuses", d, clk.waits)
		}
	}
}

// Guards cost a request no allocation: a guarded Transport allocates what
// a bare one does on a success.
func TestGuardsAllocateNothingMore(t *testing.T) {
	resp := &http.Response{StatusCode: http.StatusOK, Body: http.NoBody}
	stub := roundTripperFunc(func(*http.Request) (*http.Response, error) { return resp, nil })
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	allocs := func(rt http.RoundTripper) float64 {
		return testing.AllocsPerRun(100, func() {
			if _, err := rt.RoundTrip(req); err != nil {
				t.Fatal(err)
			}
		})
	}
	bare := allocs(NewTransport(stub))
	guarded := allocs(NewTransport(stub, WithRequestGuards(bulkhead.New(10)), WithAttemptGuards(breaker.New(), PerHost(func(string) guard.Guard { return breaker.New() }))))
	if guarded > bare {
		t.Errorf("a guarded request allocates %v times, a bare one %v", guarded, bare)
	}
}
