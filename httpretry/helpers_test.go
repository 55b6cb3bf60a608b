package httpretry

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/setting"
)

// server is a loopback test server that counts the requests it handles and
// the connections it accepts, with a client transport of its own.
type server struct {
	*httptest.Server
	hits  atomic.Int64 // requests handled
	conns atomic.Int64 // connections accepted
	base  *http.Transport
}

// newServer starts a loopback server whose handler gets the number of the
// request (from 1) it is serving. The server and the client transport's
// idle connections are closed when the test ends.
func newServer(t *testing.T, h func(w http.ResponseWriter, r *http.Request, n int)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h(w, r, int(s.hits.Add(1)))
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.Start()
	s.base = &http.Transport{}
	t.Cleanup(func() {
		s.base.CloseIdleConnections()
		s.Close()
	})
	return s
}

// statusServer answers every request with status and the body "n".
func statusServer(t *testing.T, status int) *server {
	return newServer(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		w.WriteHeader(status)
		io.WriteString(w, itoa(n))
	})
}

// flakyServer answers the first failures requests with status, then 200.
func flakyServer(t *testing.T, failures, status int) *server {
	return newServer(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		if n <= failures {
			w.WriteHeader(status)
		}
		io.WriteString(w, itoa(n))
	})
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// noWait makes retries immediate, for tests where the wait is not what is
// tested.
var noWait = WithBackOff(&backoff.ZeroBackOff{})

// exactRetryAfter makes every Retry-After obeyed exactly, without the
// spread RetryAfterWait adds, for tests of what is waited.
var exactRetryAfter = WithRandom(func() float64 { return 0 })

// constantWait makes every computed wait d, with no time limit, so that a
// test can hold a request in a long wait.
func constantWait(d time.Duration) Option {
	return func(c *config) {
		WithBackOff(backoff.NewConstantBackOff(d))(c)
		WithMaxElapsedTime(0)(c)
	}
}

// get sends a GET to url through rt.
func get(t *testing.T, rt http.RoundTripper, url string) (*http.Response, error) {
	t.Helper()
	return do(t, rt, context.Background(), http.MethodGet, url, nil)
}

func do(t *testing.T, rt http.RoundTripper, ctx context.Context, method, url string, body io.Reader) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	return roundTrip(t, rt, req)
}

// roundTrip calls rt.RoundTrip and checks that exactly one of the results
// is non-nil.
func roundTrip(t *testing.T, rt http.RoundTripper, req *http.Request) (*http.Response, error) {
	t.Helper()
	resp, err := rt.RoundTrip(req)
	if (resp == nil) == (err == nil) {
		t.Fatalf("RoundTrip returned response %v and error %v: want exactly one", resp, err)
	}
	if resp != nil {
		t.Cleanup(func() { resp.Body.Close() })
	}
	return resp, err
}

// readBody reads and closes resp's body.
func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	return string(b)
}

// recorder is an Instrumenter that keeps every State it sees, and reports
// each retry on a channel if one is set.
type recorder struct {
	mu      sync.Mutex
	states  []backoff.State
	retries chan backoff.State
}

func (r *recorder) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context { return ctx }

func (r *recorder) AfterAttempt(_ context.Context, s backoff.State) {
	r.mu.Lock()
	r.states = append(r.states, s)
	r.mu.Unlock()
	if r.retries != nil && s.Err != nil && !s.GivingUp {
		r.retries <- s
	}
}

// delays returns the waits before each retry.
func (r *recorder) delays() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	var d []time.Duration
	for _, s := range r.states {
		if s.Err != nil && !s.GivingUp {
			d = append(d, s.NextDelay)
		}
	}
	return d
}

func (r *recorder) all() []backoff.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]backoff.State(nil), r.states...)
}

// signalClock is a mock clock that reports every timer the code under test
// starts, once it exists, so a test advances the clock exactly when
// something waits on it.
type signalClock struct {
	*clock.Mock
	timers chan time.Duration
}

func newSignalClock() *signalClock {
	c := &signalClock{Mock: clock.NewMock(), timers: make(chan time.Duration, 16)}
	c.Set(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))
	return c
}

func (c *signalClock) Timer(d time.Duration) *clock.Timer {
	t := c.Mock.Timer(d)
	c.timers <- d
	return t
}

// skipClock is a clock on which every wait the driver starts ends at once,
// having moved the clock's time forward by its duration, so that a test of
// what the waits are runs its retries without spending them, on a time that
// the budgets see pass. It records each wait. The timers of AfterFunc (a
// drain's time bound) and everything else it does not override are those
// of a mock that is never advanced: they never fire.
type skipClock struct {
	*clock.Mock
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func newSkipClock() *skipClock {
	return &skipClock{Mock: clock.NewMock(), now: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *skipClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *skipClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
func (c *skipClock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }

// Timer moves the time forward by d and returns a timer that has fired:
// one of the time package, of no duration, which spends no time and, unlike
// a mock's, does not sleep.
func (c *skipClock) Timer(d time.Duration) *clock.Timer {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.waits = append(c.waits, d)
	c.mu.Unlock()
	return setting.RealClock.Timer(0)
}

// advance moves the time forward by d, as an attempt that takes d would.
func (c *skipClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// slept returns the waits the driver started, in order.
func (c *skipClock) slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// result is what a RoundTrip running in another goroutine returned.
type result struct {
	resp *http.Response
	err  error
}

// goRoundTrip runs RoundTrip in a goroutine.
func goRoundTrip(rt http.RoundTripper, req *http.Request) <-chan result {
	ch := make(chan result, 1)
	go func() {
		resp, err := rt.RoundTrip(req)
		ch <- result{resp, err}
	}()
	return ch
}

// trackedBody is a request body that records being closed.
type trackedBody struct {
	io.Reader
	closed atomic.Bool
}

func (b *trackedBody) Close() error {
	b.closed.Store(true)
	return nil
}

// closedSoon reports whether b is closed, allowing for net/http, which may
// close a request body it sent from its own goroutine after RoundTrip has
// returned, as the RoundTripper contract permits. It gives up after a few
// seconds, which a passing test never reaches.
func (b *trackedBody) closedSoon() bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); runtime.Gosched() {
		if b.closed.Load() {
			return true
		}
	}
	return b.closed.Load()
}

// closeTracker wraps a RoundTripper and records whether every response body
// it returned was closed.
type closeTracker struct {
	base   http.RoundTripper
	mu     sync.Mutex
	bodies []*trackedResponseBody
}

type trackedResponseBody struct {
	io.ReadCloser
	closed atomic.Bool
}

func (b *trackedResponseBody) Close() error {
	b.closed.Store(true)
	return b.ReadCloser.Close()
}

func (c *closeTracker) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(req)
	if resp != nil {
		b := &trackedResponseBody{ReadCloser: resp.Body}
		resp.Body = b
		c.mu.Lock()
		c.bodies = append(c.bodies, b)
		c.mu.Unlock()
	}
	return resp, err
}

// closed reports how many of the response bodies were closed, and how many
// there were.
func (c *closeTracker) closed() (closed, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.bodies {
		if b.closed.Load() {
			closed++
		}
	}
	return closed, len(c.bodies)
}

// deadURL returns the URL of a loopback port nothing listens on.
func deadURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/"
}

// asBackoffError returns err as a *backoff.Error, failing the test if it
// is not one.
func asBackoffError(t *testing.T, err error) *backoff.Error {
	t.Helper()
	var e *backoff.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *backoff.Error", err, err)
	}
	return e
}

// invalidRoundTrip sends a POST to srv through a Transport of opts, which
// must refuse it with an error matching ErrInvalidConfiguration and
// saying want, the body closed, and returns the error. (The caller checks
// that srv saw no request.)
func invalidRoundTrip(t *testing.T, srv *server, opts []Option, want string) error {
	t.Helper()
	body := &trackedBody{Reader: strings.NewReader("x")}
	req, _ := http.NewRequest(http.MethodPost, srv.URL, body)
	_, err := roundTrip(t, NewTransport(srv.base, opts...), req)
	if !errors.Is(err, ErrInvalidConfiguration) {
		t.Fatalf("got %v; want ErrInvalidConfiguration", err)
	}
	mustContain(t, err.Error(), want)
	if !body.closed.Load() {
		t.Error("the body was not closed")
	}
	return err
}

func mustContain(t *testing.T, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%q does not contain %q", s, sub)
	}
}
