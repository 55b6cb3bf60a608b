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
	"time"

	"github.com/herdsafe/backoff/herd"
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
// with the strategy's BackOff. Time is read on the clients' schedule (see
// liveClient and liveServer): it measures the requests that reached the
// server per window of it and the time until the last client succeeded.
//
// The strategies run one after another, so that none competes with another
// for the machine, each until its clients' schedule reaches o.liveLimit: a
// client still failing then counts as failed (and unfinished). Unless
// o.quiet, it writes one line per strategy on stderr as it goes.
func live(ctx context.Context, o *options, stderr io.Writer) ([]row, error) {
	var progress io.Writer
	if !o.quiet {
		progress = stderr
		fmt.Fprintf(stderr, "herd: live: %d strategies, one after another, each with %d clients against a fresh loopback server that answers 503 for %v; each gets %v of its clients' schedule\n",
			len(o.strategies), o.clients[0], liveOutage, o.liveLimit)
	}
	return liveRun(ctx, o, liveOutage, progress)
}

// liveRun is live with the outage as a parameter, for tests. It writes a
// line per strategy on progress, unless progress is nil. Stopped by ctx, it
// returns the rows of the strategies that finished, with the error.
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
			return rows, fmt.Errorf("live %s: %w", st.Name, err)
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
	s += fmt.Sprintf("; %s calls; %s of real time", number(r.Calls), seconds(r.realTime.Round(time.Millisecond)))
	if r.behind > 0 {
		s += fmt.Sprintf(" (the machine fell behind: the real-time bound of %v stopped %d clients)", realBound(limit), r.behind)
	}
	return s
}

// realBound is how long a live strategy may run on the machine's clock: its
// clients' schedule ends at limit, and it takes as long only on a machine
// that falls far behind.
func realBound(limit time.Duration) time.Duration { return limit + max(limit, 5*time.Second) }

// liveStrategy runs one herd against a fresh server, until its clients'
// schedule reaches o.liveLimit.
func liveStrategy(ctx context.Context, o *options, outage time.Duration, st herd.Strategy) (row, error) {
	n := o.clients[0]
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return row{}, err
	}
	srv := newLiveServer(n, outage, o.capacity, o.liveLimit)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	base := &http.Transport{
		MaxIdleConns:        n,
		MaxIdleConnsPerHost: n,
		MaxConnsPerHost:     n,
		IdleConnTimeout:     time.Minute,
	}
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
		wg      sync.WaitGroup
		ends    = make([]outcome, n)
		times   = make([]time.Duration, n)
		errs    = make([]error, n)
		clients = make([]*liveClient, n)
	)
	for i := range clients {
		clients[i] = newLiveClient(o, st, base)
	}
	hctx, cancel := context.WithTimeout(ctx, realBound(o.liveLimit))
	defer cancel()
	start := time.Now()
	for i, c := range clients {
		wg.Go(func() { ends[i], times[i], errs[i] = c.run(hctx, url) })
	}
	wg.Wait()
	took := time.Since(start)
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
	for _, err := range errs {
		if err != nil {
			return row{}, err // the first client's; the others are alike
		}
	}

	r := row{Scenario: "live", Strategy: st.Name, Clients: n, Runs: 1, window: liveWindow, realTime: took}
	for i, e := range ends {
		switch e {
		case succeeded:
			r.lastSuccess = max(r.lastSuccess, times[i])
		case gaveUp:
			r.Failed++
		case behind:
			r.behind++
			fallthrough
		case unfinished:
			r.Failed++
			r.Unfinished++
		}
	}
	r.Completion = r.lastSuccess
	if r.Unfinished > 0 {
		r.Completion = o.liveLimit // a lower bound
	}
	r.Seconds = r.Completion.Seconds()
	r.timeline = srv.timeline()
	for _, v := range r.timeline {
		r.Calls += float64(v)
	}
	if len(r.timeline) > 0 {
		r.PeakLoad = float64(slices.Max(r.timeline))
	}
	return r, nil
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
