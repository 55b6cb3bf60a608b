package httpretry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
)

// A server that fails N times and then succeeds is retried until it does,
// within the attempt budget.
func TestFlakyServerSucceeds(t *testing.T) {
	for _, status := range []int{408, 429, 502, 503, 504} {
		for failures := 0; failures <= 2; failures++ {
			srv := flakyServer(t, failures, status)
			rt := NewTransport(srv.base, noWait)
			resp, err := get(t, rt, srv.URL)
			if err != nil {
				t.Fatalf("status %d, %d failures: %v", status, failures, err)
			}
			if resp.StatusCode != 200 || readBody(t, resp) != itoa(failures+1) {
				t.Errorf("status %d, %d failures: got %d, want 200 from request %d", status, failures, resp.StatusCode, failures+1)
			}
			if got := srv.hits.Load(); got != int64(failures+1) {
				t.Errorf("status %d, %d failures: server saw %d requests, want %d", status, failures, got, failures+1)
			}
		}
	}
}

// When the budget runs out on a retryable status, the caller gets the last
// response with its body unread, and a nil error.
func TestExhaustedOnStatusReturnsLastResponse(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	tracker := &closeTracker{base: srv.base}
	rt := NewTransport(tracker, noWait)
	resp, err := get(t, rt, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 503 {
		t.Fatalf("status %d, want 503", resp.StatusCode)
	}
	if closed, total := tracker.closed(); total != 3 || closed != 2 {
		t.Errorf("%d of %d responses closed before the caller got the last; want 2 of 3", closed, total)
	}
	if body := readBody(t, resp); body != "3" {
		t.Errorf("body %q, want the third response's %q", body, "3")
	}
}

// Responses the policy does not retry come back at once.
func TestNonRetryableStatusReturnedAtOnce(t *testing.T) {
	for _, status := range []int{200, 201, 204, 301, 400, 401, 404, 500, 501} {
		srv := statusServer(t, status)
		resp, err := get(t, NewTransport(srv.base, noWait), srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != status || srv.hits.Load() != 1 {
			t.Errorf("status %d: got %d after %d requests, want it after 1", status, resp.StatusCode, srv.hits.Load())
		}
	}
}

// A connection the server hijacks and closes before answering, whether
// cleanly (the client reads EOF) or with a reset (SO_LINGER 0), is retried.
func TestConnectionDroppedIsRetried(t *testing.T) {
	for _, reset := range []bool{false, true} {
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
			if n > 2 {
				io.WriteString(w, "ok")
				return
			}
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			if reset {
				conn.(*net.TCPConn).SetLinger(0)
			}
			conn.Close()
		})
		rec := &recorder{}
		rt := NewTransport(srv.base, noWait, WithInstrumenter(rec))
		resp, err := get(t, rt, srv.URL)
		if err != nil {
			t.Fatalf("reset=%v: %v", reset, err)
		}
		if readBody(t, resp) != "ok" || srv.hits.Load() != 3 {
			t.Errorf("reset=%v: got status %d after %d requests, want 200 after 3", reset, resp.StatusCode, srv.hits.Load())
		}
		for _, s := range rec.all()[:2] {
			if !errors.Is(s.Err, io.EOF) && !errors.Is(s.Err, syscall.ECONNRESET) {
				t.Errorf("reset=%v: attempt %d failed with %v, want EOF or a reset", reset, s.Number, s.Err)
			}
		}
	}
}

// When the budget runs out on a transport error, the error matches
// backoff.ErrExhausted and wraps the last transport error.
func TestExhaustedOnTransportError(t *testing.T) {
	url := deadURL(t)
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	resp, err := get(t, NewTransport(base, noWait), url)
	if resp != nil {
		t.Fatal("got a response from a dead port")
	}
	if !errors.Is(err, backoff.ErrExhausted) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("error %v matches neither backoff.ErrExhausted nor ECONNREFUSED", err)
	}
	if e := asBackoffError(t, err); e.Attempts != DefaultMaxTries {
		t.Errorf("%d attempts, want %d", e.Attempts, DefaultMaxTries)
	}
	var op *net.OpError
	if !errors.As(err, &op) {
		t.Errorf("the *net.OpError is not reachable with errors.As from %v", err)
	}
}

// Each request has its own budget: one request's retries do not consume
// another's.
func TestSequentialRequestsEachGetTheFullBudget(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	rt := NewTransport(srv.base, noWait, WithMaxTries(4))
	for i := 1; i <= 3; i++ {
		resp, err := get(t, rt, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if body := readBody(t, resp); body != itoa(4*i) {
			t.Errorf("request %d ended with the response to attempt %s, want %d", i, body, 4*i)
		}
	}
}

// The same holds for the default policy, whose instance is shared.
func TestSequentialRequestsDefaultBackOff(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	rec := &recorder{}
	rt := NewTransport(srv.base, WithInstrumenter(rec), WithClock(newSkipClock()))
	for range 2 {
		resp, err := get(t, rt, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if got := srv.hits.Load(); got != 6 {
		t.Errorf("server saw %d requests, want 3 per request", got)
	}
}

// One Transport serves concurrent requests, each with its own budget.
func TestConcurrentRequests(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		id := r.Header.Get("X-Id")
		mu.Lock()
		seen[id]++
		n := seen[id]
		mu.Unlock()
		if n < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		io.WriteString(w, id)
	})
	rt := NewTransport(srv.base, noWait, WithInstrumenter(&recorder{}))
	const requests = 32
	var wg sync.WaitGroup
	errs := make(chan error, requests)
	for i := range requests {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
			req.Header.Set("X-Id", itoa(i))
			resp, err := rt.RoundTrip(req)
			if err != nil {
				errs <- err
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(b) != itoa(i) {
				errs <- errors.New("request " + itoa(i) + " got " + resp.Status + " " + string(b))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for id, n := range seen {
		if n != 3 {
			t.Errorf("request %s was sent %d times, want 3", id, n)
		}
	}
}

// RoundTrip never modifies the caller's request, and closes its body and
// every body GetBody made.
func TestRequestUnmodifiedAndBodiesClosed(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	var made []*trackedBody
	first := &trackedBody{Reader: strings.NewReader("payload")}
	req, _ := http.NewRequest(http.MethodPut, srv.URL+"/path?a=1", first)
	req.ContentLength = 7
	req.Header.Set("Idempotency-Key", "k1")
	req.Header.Set("X-Other", "v")
	req.GetBody = func() (io.ReadCloser, error) {
		b := &trackedBody{Reader: strings.NewReader("payload")}
		made = append(made, b)
		return b, nil
	}
	before := req.Clone(context.Background())
	resp, err := roundTrip(t, NewTransport(srv.base, noWait), req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if req.Method != before.Method || req.URL.String() != before.URL.String() ||
		len(req.Header) != len(before.Header) || req.Header.Get("X-Other") != "v" ||
		req.Header.Get("Idempotency-Key") != "k1" || req.Body != first || req.ContentLength != 7 {
		t.Errorf("the request was modified: %+v", req)
	}
	if !first.closedSoon() {
		t.Error("the request's body was not closed")
	}
	if len(made) != 2 {
		t.Fatalf("GetBody was called %d times, want 2", len(made))
	}
	for i, b := range made {
		if !b.closedSoon() {
			t.Errorf("the body from GetBody call %d was not closed", i+1)
		}
	}
}

// contractBreaker is a base RoundTripper that returns what it is told.
type contractBreaker struct {
	resp *http.Response
	err  error
}

func (c *contractBreaker) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	return c.resp, c.err
}

// A base that breaks the RoundTripper contract does not make the Transport
// break it.
func TestBaseContractViolations(t *testing.T) {
	body := &trackedResponseBody{ReadCloser: io.NopCloser(strings.NewReader(""))}
	both := &contractBreaker{resp: &http.Response{StatusCode: 200, Body: body}, err: io.ErrUnexpectedEOF}
	_, err := do(t, NewTransport(both, noWait), context.Background(), http.MethodGet, "http://127.0.0.1/", nil)
	if !errors.Is(err, io.ErrUnexpectedEOF) || !body.closed.Load() {
		t.Errorf("response and error: got %v, body closed %v; want the error and the body closed", err, body.closed.Load())
	}
	neither := &contractBreaker{}
	_, err = do(t, NewTransport(neither, noWait), context.Background(), http.MethodGet, "http://127.0.0.1/", nil)
	if !errors.Is(err, errNilResponse) || asBackoffError(t, err).Attempts != 1 {
		t.Errorf("neither response nor error: got %v, want errNilResponse after 1 attempt", err)
	}
}

// A nil base means http.DefaultTransport.
func TestNilBase(t *testing.T) {
	if rt := NewTransport(nil); rt.base != http.DefaultTransport {
		t.Errorf("base is %v, want http.DefaultTransport", rt.base)
	}
}

// A typed nil base, such as a nil *http.Transport, is an invalid
// configuration that RoundTrip reports, closing the body, rather than a
// panic inside net/http; CloseIdleConnections does nothing.
func TestTypedNilBase(t *testing.T) {
	for _, base := range []http.RoundTripper{(*http.Transport)(nil), roundTripperFunc(nil)} {
		rt := NewTransport(base, noWait)
		body := &trackedBody{Reader: strings.NewReader("x")}
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/", body)
		_, err := roundTrip(t, rt, req)
		if !errors.Is(err, ErrInvalidConfiguration) {
			t.Fatalf("%T: error %v does not match ErrInvalidConfiguration", base, err)
		}
		mustContain(t, err.Error(), fmt.Sprintf("backoff: invalid configuration: httpretry: NewTransport was given a nil %T", base))
		if e := asBackoffError(t, err); e.Attempts != 0 || e.LastErr != nil {
			t.Errorf("%T: %+v; want no attempt", base, e)
		}
		if !body.closed.Load() {
			t.Errorf("%T: the body was not closed", base)
		}
		rt.CloseIdleConnections()
	}
	// A bad base and a bad option are both reported, the base first.
	_, err := get(t, NewTransport((*http.Transport)(nil), WithMaxRetryAfter(-1), WithRandom(nil)), "http://127.0.0.1/")
	msg := fmt.Sprint(err)
	base, opt := strings.Index(msg, "NewTransport was given a nil *http.Transport"), strings.Index(msg, "WithMaxRetryAfter")
	if !errors.Is(err, ErrInvalidConfiguration) || base < 0 || opt < base || strings.Contains(msg, "WithRandom") {
		t.Errorf("got %q; want the base and the first bad option, in that order", msg)
	}
}

// CloseIdleConnections reaches the base.
func TestCloseIdleConnections(t *testing.T) {
	srv := statusServer(t, 200)
	rt := NewTransport(srv.base)
	resp, err := get(t, rt, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	readBody(t, resp)
	(&http.Client{Transport: rt}).CloseIdleConnections()
	resp, err = get(t, rt, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	readBody(t, resp)
	if got := srv.conns.Load(); got != 2 {
		t.Errorf("%d connections, want 2: the idle one was not closed", got)
	}
}

// Every attempt sends a clone of the caller's request, the first one too:
// a base that, against its contract, modifies the request it is given
// changes neither the caller's request nor a later attempt's.
func TestBaseMutationsStayInTheAttempt(t *testing.T) {
	var inherited []string
	var sentCallers int
	var req *http.Request
	base := roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		if r == req {
			sentCallers++
		}
		inherited = append(inherited, r.Header.Get("X-Added")+r.URL.Path)
		r.Header.Set("X-Added", "1")
		r.Header.Del("X-Keep")
		r.URL.Path = "/changed"
		return &http.Response{StatusCode: 503, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
	})
	req, _ = http.NewRequest(http.MethodGet, "http://127.0.0.1/p", nil)
	req.Header.Set("X-Keep", "k")
	resp, err := roundTrip(t, NewTransport(base, noWait), req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if sentCallers != 0 {
		t.Errorf("the caller's own request was sent %d times", sentCallers)
	}
	if len(inherited) != 3 || inherited[0] != "/p" || inherited[1] != "/p" || inherited[2] != "/p" {
		t.Errorf("the attempts saw X-Added and the path %q, want an unchanged request each time", inherited)
	}
	if len(req.Header) != 1 || req.Header.Get("X-Keep") != "k" || req.URL.Path != "/p" {
		t.Errorf("the caller's request was modified: header %v, path %q", req.Header, req.URL.Path)
	}
}

// negativeBackOff is a policy that breaks its contract with a negative
// wait.
type negativeBackOff struct{}

func (negativeBackOff) NextBackOff() time.Duration { return -time.Second }
func (negativeBackOff) Reset()                     {}
func (b negativeBackOff) Clone() backoff.BackOff   { return b }

// A *StatusError reaches the caller only when RoundTrip has to close the
// response it describes: as the LastErr of the *backoff.Error, so errors.As
// finds it. Here the policy fails while deciding on the retry (the
// cancellation case is TestCancelDuringWait).
func TestStatusErrorWhenTheResponseIsDropped(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	tracker := &closeTracker{base: srv.base}
	rt := NewTransport(tracker, WithBackOff(negativeBackOff{}))
	_, err := get(t, rt, srv.URL)
	var se *StatusError
	if !errors.Is(err, ErrInvalidConfiguration) || !errors.As(err, &se) || se.StatusCode != 503 {
		t.Fatalf("error %v: want ErrInvalidConfiguration and the 503's *StatusError", err)
	}
	if e := asBackoffError(t, err); e.LastErr != error(se) {
		t.Errorf("LastErr is %v, want the *StatusError", e.LastErr)
	}
	if closed, total := tracker.closed(); closed != 1 || total != 1 {
		t.Errorf("%d of %d responses closed, want 1 of 1", closed, total)
	}
}
