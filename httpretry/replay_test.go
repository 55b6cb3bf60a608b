package httpretry

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
)

// Only the methods net/http replays are retried, plus any request with an
// idempotency key; the options replace both rules.
func TestMethodMatrix(t *testing.T) {
	cases := []struct {
		name    string
		method  string
		header  string // a header set on the request, with an empty value
		opts    []Option
		retried bool
	}{
		{"get", "GET", "", nil, true},
		{"empty_means_get", "", "", nil, true},
		{"head", "HEAD", "", nil, true},
		{"options", "OPTIONS", "", nil, true},
		{"trace", "TRACE", "", nil, true},
		{"post", "POST", "", nil, false},
		{"put", "PUT", "", nil, false},
		{"patch", "PATCH", "", nil, false},
		{"delete", "DELETE", "", nil, false},
		{"post_idempotency_key", "POST", "Idempotency-Key", nil, true},
		{"post_x_idempotency_key", "POST", "X-Idempotency-Key", nil, true},
		{"custom_methods_put", "PUT", "", []Option{WithRetryableMethods("PUT")}, true},
		{"custom_methods_replace_get", "GET", "", []Option{WithRetryableMethods("PUT")}, false},
		{"no_methods", "GET", "", []Option{WithRetryableMethods()}, false},
		{"no_methods_key", "GET", "Idempotency-Key", []Option{WithRetryableMethods()}, true},
		{"custom_header", "POST", "X-Request-Id", []Option{WithIdempotencyKeyHeader("x-request-id")}, true},
		{"custom_header_replaces_default", "POST", "Idempotency-Key", []Option{WithIdempotencyKeyHeader("X-Request-Id")}, false},
		{"custom_header_replaces_x_default", "POST", "X-Idempotency-Key", []Option{WithIdempotencyKeyHeader("X-Request-Id")}, false},
		{"header_disabled", "POST", "Idempotency-Key", []Option{WithIdempotencyKeyHeader("")}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := statusServer(t, http.StatusServiceUnavailable)
			req, _ := http.NewRequest(c.method, srv.URL, nil)
			req.Method = c.method
			if c.header != "" {
				req.Header.Set(c.header, "")
			}
			resp, err := roundTrip(t, NewTransport(srv.base, append(c.opts, noWait)...), req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			want := int64(1)
			if c.retried {
				want = DefaultMaxTries
			}
			if got := srv.hits.Load(); got != want {
				t.Errorf("%d requests, want %d", got, want)
			}
		})
	}
}

// An idempotency key counts when present, even with no value, as net/http
// counts it (such a header is not sent).
func TestIdempotencyKeyWithNilValue(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
	req.Header["Idempotency-Key"] = nil
	resp, err := roundTrip(t, NewTransport(srv.base, noWait), req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := srv.hits.Load(); got != DefaultMaxTries {
		t.Errorf("%d requests, want %d", got, DefaultMaxTries)
	}
}

// bodyServer records the body of every request and answers the first
// failures of them with 503.
type bodyServer struct {
	*server
	mu     sync.Mutex
	bodies [][]byte
}

func newBodyServer(t *testing.T, failures int) *bodyServer {
	bs := &bodyServer{}
	bs.server = newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("reading request %d: %v", n, err)
		}
		bs.mu.Lock()
		bs.bodies = append(bs.bodies, b)
		bs.mu.Unlock()
		if n <= failures {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		io.WriteString(w, itoa(n))
	})
	return bs
}

// A POST with an Idempotency-Key is retried, its body replayed byte for
// byte through GetBody; without one it is sent once.
func TestPostBodyReplay(t *testing.T) {
	payload := make([]byte, 200<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range payload {
		payload[i] = byte(rng.Uint32())
	}
	for _, key := range []bool{true, false} {
		srv := newBodyServer(t, 2)
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(payload))
		if key {
			req.Header.Set("Idempotency-Key", "order-42")
		}
		resp, err := roundTrip(t, NewTransport(srv.base, noWait), req)
		if err != nil {
			t.Fatal(err)
		}
		body := readBody(t, resp)
		want := []string{"1", "3"}[map[bool]int{false: 0, true: 1}[key]]
		if body != want {
			t.Errorf("key=%v: ended with the response to request %s, want %s", key, body, want)
		}
		srv.mu.Lock()
		for i, b := range srv.bodies {
			if !bytes.Equal(b, payload) {
				t.Errorf("key=%v: request %d carried %d bytes that differ from the %d sent", key, i+1, len(b), len(payload))
			}
		}
		srv.mu.Unlock()
	}
}

// A retryable response to a request whose body has no GetBody is handed to
// the caller as it is.
func TestBodyWithoutGetBodyResponse(t *testing.T) {
	srv := newBodyServer(t, 5)
	body := &trackedBody{Reader: strings.NewReader("once")}
	req, _ := http.NewRequest(http.MethodPut, srv.URL, body)
	req.Header.Set("Idempotency-Key", "k")
	rec := &recorder{}
	resp, err := roundTrip(t, NewTransport(srv.base, noWait, WithInstrumenter(rec)), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 503 || readBody(t, resp) != "1" || srv.hits.Load() != 1 {
		t.Errorf("got %d after %d requests; want the first 503", resp.StatusCode, srv.hits.Load())
	}
	if !body.closedSoon() {
		t.Error("the body was not closed")
	}
	if s := rec.all(); len(s) != 1 || !errors.Is(s[0].Err, ErrBodyNotReplayable) {
		t.Errorf("instrumentation saw %+v; want one attempt not retried for its body", s)
	}
}

// A retryable transport error met by a request whose body has no GetBody
// is returned, matching both the cause and ErrBodyNotReplayable, after
// reading only part of the body: the body is never buffered, and never
// resent.
func TestBodyWithoutGetBodyTransportError(t *testing.T) {
	const size = 64 << 20
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		io.CopyN(io.Discard, r.Body, 1<<20)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	})
	gen := &generator{remaining: size}
	req, _ := http.NewRequest(http.MethodPost, srv.URL, gen)
	req.ContentLength = size
	req.Header.Set("Idempotency-Key", "k")
	_, err := roundTrip(t, NewTransport(srv.base, noWait), req)
	if !errors.Is(err, ErrBodyNotReplayable) {
		t.Fatalf("error %v does not match ErrBodyNotReplayable", err)
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) && !errors.Is(err, net.ErrClosed) {
		t.Errorf("error %v does not match the connection failure", err)
	}
	if !errors.Is(err, backoff.ErrPermanent) || asBackoffError(t, err).Attempts != 1 {
		t.Errorf("error %+v: want one attempt, then a stop", err)
	}
	if srv.hits.Load() != 1 {
		t.Errorf("%d requests, want 1", srv.hits.Load())
	}
	if sent := size - gen.remaining; sent >= size {
		t.Errorf("the whole body was read (%d bytes): it was buffered", sent)
	}
	if !gen.closed {
		t.Error("the body was not closed")
	}
}

// generator is a request body of a given size made up on the fly, with
// no GetBody.
type generator struct {
	remaining int64
	closed    bool
}

var block = bytes.Repeat([]byte("0123456789abcdef"), 2048) // 32 KiB

func (g *generator) Read(p []byte) (int, error) {
	if g.remaining == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(int64(len(p)), g.remaining)], block)
	g.remaining -= int64(n)
	return n, nil
}

func (g *generator) Close() error {
	g.closed = true
	return nil
}

// A 64 MiB upload streams through the Transport: memory stays flat.
func TestLargeStreamedUpload(t *testing.T) {
	const size = 64 << 20
	var received int64
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		received, _ = io.Copy(io.Discard, r.Body)
	})
	gen := &generator{remaining: size}
	req, _ := http.NewRequest(http.MethodPut, srv.URL, gen)
	req.ContentLength = size
	req.Header.Set("Idempotency-Key", "k")
	rt := NewTransport(srv.base, noWait)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	resp, err := roundTrip(t, rt, req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	runtime.ReadMemStats(&after)

	if received != size {
		t.Fatalf("the server received %d bytes, want %d", received, size)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("sending %d MiB allocated %d KiB: the body was buffered", size>>20, alloc>>10)
	}
}

// GetBody is called before a retry is decided. When it fails, or returns
// a nil body, the body is not replayable: a retryable response is handed
// to the caller as it is, with its body unread.
func TestGetBodyFailsAfterStatus(t *testing.T) {
	errGone := errors.New("gone")
	for _, c := range []struct {
		name    string
		getBody func() (io.ReadCloser, error)
		want    []error
		says    string
	}{
		{"error", func() (io.ReadCloser, error) { return nil, errGone }, []error{errGone, ErrBodyNotReplayable}, "GetBody failed: gone"},
		{"nil_body", func() (io.ReadCloser, error) { return nil, nil }, []error{ErrBodyNotReplayable}, "GetBody returned a nil body"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := statusServer(t, http.StatusServiceUnavailable)
			tracker := &closeTracker{base: srv.base}
			rec := &recorder{}
			req, _ := http.NewRequest(http.MethodPut, srv.URL, strings.NewReader("x"))
			req.Header.Set("Idempotency-Key", "k")
			req.GetBody = c.getBody
			resp, err := roundTrip(t, NewTransport(tracker, noWait, WithInstrumenter(rec)), req)
			if err != nil {
				t.Fatalf("got error %v; want the 503", err)
			}
			if resp.StatusCode != 503 || readBody(t, resp) != "1" || srv.hits.Load() != 1 {
				t.Errorf("got %d after %d requests; want the first 503, body unread", resp.StatusCode, srv.hits.Load())
			}
			if closed, total := tracker.closed(); closed != 1 || total != 1 {
				t.Errorf("%d of %d responses closed, want only the caller's", closed, total)
			}
			s := rec.all()
			if len(s) != 1 || !s[0].GivingUp {
				t.Fatalf("instrumentation saw %+v; want one attempt, not retried", s)
			}
			for _, w := range c.want {
				if !errors.Is(s[0].Err, w) {
					t.Errorf("the attempt's error %v does not match %v", s[0].Err, w)
				}
			}
			mustContain(t, s[0].Err.Error(), "503 Service Unavailable (not retried: the request body cannot be replayed: "+c.says+")")
		})
	}
}

// When GetBody fails after a retryable transport error, the error returned
// matches the transport error, ErrBodyNotReplayable and GetBody's error.
func TestGetBodyFailsAfterTransportError(t *testing.T) {
	errGone := errors.New("gone")
	sent := 0
	base := roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		sent++
		req.Body.Close()
		return nil, syscall.ECONNRESET
	})
	req, _ := http.NewRequest(http.MethodPut, "http://127.0.0.1/", strings.NewReader("x"))
	req.Header.Set("Idempotency-Key", "k")
	req.GetBody = func() (io.ReadCloser, error) { return nil, errGone }
	_, err := roundTrip(t, NewTransport(base, noWait), req)
	for _, w := range []error{syscall.ECONNRESET, ErrBodyNotReplayable, errGone, backoff.ErrPermanent} {
		if !errors.Is(err, w) {
			t.Errorf("error %v does not match %v", err, w)
		}
	}
	mustContain(t, err.Error(), "(not retried: the request body cannot be replayed: GetBody failed: gone)")
	if sent != 1 || asBackoffError(t, err).Attempts != 1 {
		t.Errorf("%d requests sent; want 1", sent)
	}
}

// A body GetBody made for a retry that the driver then does not make (here
// the wait would overrun WithMaxElapsedTime) is closed.
func TestPreparedBodyClosedWhenNotRetried(t *testing.T) {
	var made []*trackedBody
	base := roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		req.Body.Close()
		return nil, syscall.ECONNREFUSED
	})
	req, _ := http.NewRequest(http.MethodPut, "http://127.0.0.1/", strings.NewReader("x"))
	req.Header.Set("Idempotency-Key", "k")
	req.GetBody = func() (io.ReadCloser, error) {
		b := &trackedBody{Reader: strings.NewReader("x")}
		made = append(made, b)
		return b, nil
	}
	_, err := roundTrip(t, NewTransport(base, constantWait(time.Hour), WithMaxElapsedTime(time.Minute)), req)
	if !errors.Is(err, backoff.ErrMaxElapsedTime) {
		t.Fatalf("error %v does not match backoff.ErrMaxElapsedTime", err)
	}
	if len(made) != 1 || !made[0].closed.Load() {
		t.Errorf("GetBody made %d bodies; want 1, closed", len(made))
	}
}

// A request whose context a BeforeAttempt replaced is sent with that
// context, and the caller's request keeps its own.
func TestAttemptContextReachesTheBase(t *testing.T) {
	type key struct{}
	var seen []any
	base := roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		seen = append(seen, req.Context().Value(key{}))
		return &http.Response{StatusCode: 503, Body: http.NoBody, Request: req}, nil
	})
	in := &tagger{key: key{}}
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	resp, err := roundTrip(t, NewTransport(base, noWait, WithInstrumenter(in)), req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(seen) != 3 || seen[0] != 1 || seen[2] != 3 {
		t.Errorf("the base saw the context values %v, want [1 2 3]", seen)
	}
	if req.Context().Value(key{}) != nil {
		t.Error("the caller's request context was replaced")
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// tagger is an Instrumenter that puts the attempt number in the attempt's
// context.
type tagger struct{ key any }

func (g *tagger) BeforeAttempt(ctx context.Context, s backoff.State) context.Context {
	return context.WithValue(ctx, g.key, s.Number)
}

func (g *tagger) AfterAttempt(context.Context, backoff.State) {}

// A transport error ends a request that may not be retried with the reason
// that applies: the method, the body, or the budget.
func TestTransportErrorReasons(t *testing.T) {
	url := deadURL(t)
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	newReq := func(method string, key bool) *http.Request {
		req, _ := http.NewRequest(method, url, io.NopCloser(strings.NewReader("x")))
		if key {
			req.Header.Set("Idempotency-Key", "k")
		}
		return req
	}
	cases := []struct {
		name         string
		req          *http.Request
		tries        uint
		notReplay    bool
		cause        error
		wantAttempts int
	}{
		{"post_without_key", newReq("POST", false), 3, false, backoff.ErrPermanent, 1},
		{"body_without_getbody", newReq("POST", true), 3, true, backoff.ErrPermanent, 1},
		{"budget_of_one", newReq("POST", true), 1, false, backoff.ErrExhausted, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := roundTrip(t, NewTransport(base, noWait, WithMaxTries(c.tries)), c.req)
			if errors.Is(err, ErrBodyNotReplayable) != c.notReplay || !errors.Is(err, c.cause) ||
				!errors.Is(err, syscall.ECONNREFUSED) || asBackoffError(t, err).Attempts != c.wantAttempts {
				t.Errorf("got %+v; want %v, ErrBodyNotReplayable %v, after %d attempts", err, c.cause, c.notReplay, c.wantAttempts)
			}
			if says := strings.Contains(err.Error(), "body cannot be replayed"); says != c.notReplay {
				t.Errorf("message %q: says the body cannot be replayed: %v, want %v", err, says, c.notReplay)
			}
		})
	}
}
