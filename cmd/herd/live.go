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

// live asks the restart question for real. For each strategy, a loopback
// HTTP server of its own answers 503 for liveOutage, then serves at most
// o.capacity requests per 10 ms window (the excess gets 503), while
// o.clients[0] goroutines each send one GET through an httpretry.Transport
// with the strategy's policy. It measures the requests that reached the
// server per window and the time until every client succeeded.
//
// The strategies run side by side, so that the whole run takes as long as
// the slowest strategy, and at most o.liveLimit: a client still failing
// then counts as failed.
func live(ctx context.Context, o *options, stderr io.Writer) ([]row, error) {
	if !o.quiet {
		fmt.Fprintf(stderr, "herd: live: %d strategies × %d clients against loopback servers that restart for %v; at most %v\n",
			len(o.strategies), o.clients[0], liveOutage, o.liveLimit)
	}
	return liveRun(ctx, o, liveOutage)
}

// liveRun is live with the outage as a parameter, for tests.
func liveRun(ctx context.Context, o *options, outage time.Duration) ([]row, error) {
	rows := make([]row, len(o.strategies))
	errs := make([]error, len(o.strategies))
	var wg sync.WaitGroup
	for i, st := range o.strategies {
		wg.Go(func() {
			rows[i], errs[i] = liveStrategy(ctx, o, outage, st)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("live %s: %w", st.Name, errs[i])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return rows, nil
}

// liveServer restarts at start: it answers 503 until start+outage, then
// accepts capacity requests per window. It counts every arrival. Before
// start, it holds every request until warm of them are in, so that each
// client opens a connection of its own before the herd is timed.
type liveServer struct {
	started  atomic.Bool
	warm     sync.WaitGroup
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
		s.warm.Done()
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

// liveStrategy runs one herd against a fresh server.
func liveStrategy(ctx context.Context, o *options, outage time.Duration, st herd.Strategy) (row, error) {
	n := o.clients[0]
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return row{}, err
	}
	srv := &liveServer{
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
	client := &http.Client{Transport: httpretry.NewTransport(base,
		httpretry.WithBackOff(st.NewPolicy),
		httpretry.WithMaxTries(uint(o.maxCalls)),
		httpretry.WithMaxElapsedTime(o.liveLimit),
	)}
	url := "http://" + ln.Addr().String() + "/"

	ctx, cancel := context.WithTimeout(ctx, o.liveLimit)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		finished time.Duration
		ok       int
		failure  error
	)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	if err := warmUp(ctx, base, srv, url, n); err != nil {
		hs.Close()
		<-served
		return row{}, err
	}
	srv.start = time.Now()
	srv.started.Store(true)
	for range n {
		wg.Go(func() {
			err := get(ctx, client, url)
			mu.Lock()
			defer mu.Unlock()
			finished = max(finished, time.Since(srv.start))
			switch {
			case err == nil:
				ok++
			case ctx.Err() == nil && !isRetryFailure(err) && failure == nil:
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
	if failure != nil {
		return row{}, failure
	}
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return row{}, err // cancelled by the user
	}

	r := row{Scenario: "live", Strategy: st.Name, Clients: n, Runs: 1, Failed: float64(n - ok),
		Completion: finished, Seconds: finished.Seconds(), window: liveWindow}
	last := 0
	for i := range srv.arrivals {
		v := int(srv.arrivals[i].Load())
		r.timeline = append(r.timeline, v)
		r.Calls += float64(v)
		if v > 0 {
			last = i + 1
		}
	}
	r.timeline = r.timeline[:last]
	if last > 0 {
		r.PeakLoad = float64(slices.Max(r.timeline))
	}
	return r, nil
}

// warmUp opens n connections from base to the server, one per client, by
// sending n requests that the server holds until all have arrived.
func warmUp(ctx context.Context, base *http.Transport, srv *liveServer, url string, n int) error {
	srv.warm.Add(n)
	go func() {
		srv.warm.Wait()
		close(srv.warmed)
	}()
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
// fail: its retries ran out with a 503, or its time did.
func isRetryFailure(err error) bool {
	var s *statusError
	return errors.As(err, &s)
}
