package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdsafe/backoff/herd"
	"github.com/herdsafe/backoff/httpretry"
)

// liveOutage is how long the live server answers 503 to everything, as if it
// were restarting.
const liveOutage = 2 * time.Second

// liveWindow is the width of the windows arrivals and capacity are counted
// in.
const liveWindow = 10 * time.Millisecond

// live asks the restart question for real. For each strategy in turn, a
// loopback HTTP server of its own answers 503 for liveOutage, then serves at
// most o.capacity requests per 10 ms window (the excess gets 503), while
// o.clients[0] goroutines each send one GET through an httpretry.Transport
// with the strategy's policy. It measures the requests that reached the
// server per window and the time until the last client succeeded.
//
// The strategies run one after another, so that none competes with another
// for the machine, each for at most o.liveLimit: a client still failing
// then counts as failed (and unfinished). Unless o.quiet, it writes one
// line per strategy on stderr as it goes.
func live(ctx context.Context, o *options, stderr io.Writer) ([]row, error) {
	var progress io.Writer
	if !o.quiet {
		progress = stderr
		fmt.Fprintf(stderr, "herd: live: %d strategies, one after another, each with %d clients against a fresh loopback server that answers 503 for %v; at most %v each\n",
			len(o.strategies), o.clients[0], liveOutage, o.liveLimit)
	}
	return liveRun(ctx, o, liveOutage, progress)
}

// liveRun is live with the outage as a parameter, for tests. It writes a
// line per strategy on progress, unless progress is nil.
func liveRun(ctx context.Context, o *options, outage time.Duration, progress io.Writer) ([]row, error) {
	rows := make([]row, 0, len(o.strategies))
	for i, st := range o.strategies {
		if progress != nil {
			fmt.Fprintf(progress, "herd: live %d/%d %-12s ", i+1, len(o.strategies), st.Name)
		}
		r, err := liveStrategy(ctx, o, outage, st)
		if err != nil {
			if progress != nil {
				fmt.Fprintln(progress, "stopped")
			}
			return nil, fmt.Errorf("live %s: %w", st.Name, err)
		}
		if progress != nil {
			fmt.Fprintln(progress, summary(r, o.liveLimit))
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// summary describes a live row in a line.
func summary(r row, limit time.Duration) string {
	ok := r.Clients - int(r.Failed)
	s := fmt.Sprintf("%d of %d succeeded", ok, r.Clients)
	if ok > 0 {
		s += ", the last at " + seconds(r.lastSuccess)
	}
	if r.Unfinished > 0 {
		s += fmt.Sprintf("; %s still failing at the %v limit", number(r.Unfinished), limit)
	}
	if gaveUp := r.Failed - r.Unfinished; gaveUp > 0 {
		s += fmt.Sprintf("; %s gave up (-max-calls)", number(gaveUp))
	}
	return s + fmt.Sprintf("; %s calls", number(r.Calls))
}

// liveServer restarts at start: it answers 503 until start+outage, then
// accepts capacity requests per window. It counts every arrival. Before
// start, it holds every request until warm of them are in, so that each
// client opens a connection of its own before the herd is timed.
type liveServer struct {
	started  atomic.Bool
	warm     int64         // how many requests to hold
	held     atomic.Int64  // requests held so far
	warmed   chan struct{} // closed when warm requests are in
	start    time.Time     // written before started is set
	outage   time.Duration
	capacity int64
	arrivals []atomic.Int64 // per window since start
	mu       sync.Mutex
	window   int64 // the window served counts
	served   int64 // requests served in it
}

func (s *liveServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.started.Load() {
		if s.held.Add(1) == s.warm {
			close(s.warmed)
		}
		select {
		case <-s.warmed:
		case <-r.Context().Done():
		}
		return
	}
	since := time.Since(s.start)
	win := int64(since / liveWindow)
	if win < int64(len(s.arrivals)) {
		s.arrivals[win].Add(1)
	}
	if since < s.outage || !s.admit(win) {
		w.Header().Set("Connection", "keep-alive")
		http.Error(w, "restarting", http.StatusServiceUnavailable)
		return
	}
	io.WriteString(w, "ok")
}

// admit reports whether one more request fits in window win.
func (s *liveServer) admit(win int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if win != s.window {
		s.window, s.served = win, 0
	}
	if s.served >= s.capacity {
		return false
	}
	s.served++
	return true
}

// liveStrategy runs one herd against a fresh server, for at most
// o.liveLimit from the moment the server restarts.
func liveStrategy(ctx context.Context, o *options, outage time.Duration, st herd.Strategy) (row, error) {
	n := o.clients[0]
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return row{}, err
	}
	srv := &liveServer{
		warm:     int64(n),
		warmed:   make(chan struct{}),
		outage:   outage,
		capacity: int64(o.capacity),
		arrivals: make([]atomic.Int64, int(o.liveLimit/liveWindow)+1),
		window:   -1,
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	base := &http.Transport{
		MaxIdleConns:        n,
		MaxIdleConnsPerHost: n,
		MaxConnsPerHost:     n,
		IdleConnTimeout:     time.Minute,
	}
	client := &http.Client{Transport: httpretry.NewTransport(countingTransport{base},
		httpretry.WithBackOff(st.NewPolicy),
		httpretry.WithMaxTries(uint(o.maxCalls)),
	)}
	url := "http://" + ln.Addr().String() + "/"

	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	if err := warmUp(ctx, base, srv, url, n); err != nil {
		hs.Close()
		<-served
		base.CloseIdleConnections()
		return row{}, err
	}

	var (
		wg         sync.WaitGroup
		mu         sync.Mutex
		last       time.Duration // of the last success
		ok         int
		unfinished int
		failure    error
	)
	hctx, cancel := context.WithTimeout(ctx, o.liveLimit)
	defer cancel()
	srv.start = time.Now()
	srv.started.Store(true)
	for range n {
		wg.Go(func() {
			tries := new(atomic.Int64)
			err := get(context.WithValue(hctx, triesKey{}, tries), client, url)
			at := time.Since(srv.start)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
				last = max(last, at)
			case isRetryFailure(err) && tries.Load() >= int64(o.maxCalls):
				// It gave up: its attempts ran out.
			case isRetryFailure(err) || errors.Is(err, context.DeadlineExceeded) || hctx.Err() != nil:
				// The limit cut it off: it was still failing, and the
				// deadline left no room for another attempt.
				unfinished++
			case failure == nil:
				failure = err
			}
		})
	}
	wg.Wait()
	shutdown, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	herr := hs.Shutdown(shutdown)
	base.CloseIdleConnections()
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return row{}, err
	}
	if herr != nil {
		return row{}, herr
	}
	if err := ctx.Err(); err != nil {
		return row{}, context.Cause(ctx) // cancelled by the user
	}
	if failure != nil {
		return row{}, failure
	}

	r := row{Scenario: "live", Strategy: st.Name, Clients: n, Runs: 1,
		Failed: float64(n - ok), Unfinished: float64(unfinished), Completion: last, lastSuccess: last, window: liveWindow}
	if unfinished > 0 {
		r.Completion = o.liveLimit // a lower bound
	}
	r.Seconds = r.Completion.Seconds()
	end := 0
	for i := range srv.arrivals {
		v := int(srv.arrivals[i].Load())
		r.timeline = append(r.timeline, v)
		r.Calls += float64(v)
		if v > 0 {
			end = i + 1
		}
	}
	r.timeline = r.timeline[:end]
	if end > 0 {
		r.PeakLoad = float64(slices.Max(r.timeline))
	}
	return r, nil
}

// triesKey is the context key of a client's attempt counter, an
// *atomic.Int64.
type triesKey struct{}

// countingTransport counts, in the counter its request's context carries,
// the attempts httpretry makes for one client, so that a client whose
// attempts ran out is told apart from one the limit cut off.
type countingTransport struct{ base http.RoundTripper }

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if c, ok := req.Context().Value(triesKey{}).(*atomic.Int64); ok {
		c.Add(1)
	}
	return t.base.RoundTrip(req)
}

// warmUp opens n connections from base to the server, one per client, by
// sending n requests that the server holds until all have arrived (srv.warm
// must be n).
func warmUp(ctx context.Context, base *http.Transport, srv *liveServer, url string, n int) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err == nil {
				var resp *http.Response
				if resp, err = base.RoundTrip(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("opening %d connections: %w", n, err)
	}
	return nil
}

// get sends one GET and reports whether it got a 200.
func get(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &statusError{resp.StatusCode}
	}
	return nil
}

// statusError is a final response other than 200: the client gave up.
type statusError struct{ code int }

func (e *statusError) Error() string { return fmt.Sprintf("status %d", e.code) }

// isRetryFailure reports whether err is the expected way for a client to
// fail: it got a 503 as its final answer, because its attempts ran out or
// the limit left no room for another.
func isRetryFailure(err error) bool {
	var s *statusError
	return errors.As(err, &s)
}
