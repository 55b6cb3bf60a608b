package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/herd"
	"github.com/herdsafe/backoff/httpretry"
)

// arrivalHeader carries, on every request of a live herd, the time it
// reaches the server on its client's schedule, in nanoseconds since the
// restart. Warm-up requests do not carry it.
const arrivalHeader = "Herd-Arrival"

// liveClient is one client of a live run: an http.Client that retries
// through httpretry.Transport with a strategy's BackOff, and the client's
// schedule. The schedule is the time the client would read on a machine
// that never runs late: its requests reach the server after a one-way
// network delay drawn as the simulation draws it, their answers come back
// after another, and each retry follows the wait its BackOff chose. The
// waits are also slept for real, by httpretry; the network delays are not.
//
// A liveClient is used by one goroutine: httpretry runs a request's
// attempts and asks its BackOff for waits on the goroutine that sent it.
type liveClient struct {
	http     *http.Client
	delay    herd.Delay
	limit    time.Duration // no request reaches the server at or after it
	maxCalls int

	arrival time.Duration // of the request in flight, on the schedule
	tries   int           // requests sent
	cutOff  bool          // the next request would have reached the limit
	stopped bool          // the BackOff itself gave up (backoff.Stop)
}

// newLiveClient returns a client that sends its requests through base,
// with st's BackOff, at most o.maxCalls times.
func newLiveClient(o *options, st herd.Strategy, base http.RoundTripper) *liveClient {
	c := &liveClient{delay: o.delay, limit: o.liveLimit, maxCalls: o.maxCalls}
	c.arrival = c.oneWay()
	c.http = &http.Client{Transport: httpretry.NewTransport(stamper{base: base, c: c},
		httpretry.WithBackOff(&scheduled{BackOff: st.NewBackOff(), c: c}),
		httpretry.WithMaxTries(uint(o.maxCalls)),
	)}
	return c
}

// oneWay draws one one-way network delay, |Normal(Mean, StdDev)|, as
// the simulation does.
func (c *liveClient) oneWay() time.Duration { return c.delay.Draw(rand.NormFloat64) }

// outcome is how a live client ended.
type outcome int

const (
	succeeded  outcome = iota
	gaveUp             // its attempts ran out, or its BackOff stopped
	unfinished         // still retrying when its schedule reached the limit
	behind             // still retrying when the real-time bound stopped it
)

// run sends the client's one GET, retried as its BackOff says, and reports
// how it ended and, for a success, when its answer came back on the
// schedule. An error is a failure the herd does not explain.
func (c *liveClient) run(ctx context.Context, url string) (outcome, time.Duration, error) {
	if c.arrival >= c.limit {
		c.cutOff = true
		return unfinished, 0, nil
	}
	err := get(ctx, c.http, url)
	switch {
	case err == nil:
		return succeeded, sat(c.arrival, c.oneWay()), nil
	case isRetryFailure(err) && (c.tries >= c.maxCalls || c.stopped):
		return gaveUp, 0, nil
	case isRetryFailure(err) && c.cutOff:
		return unfinished, 0, nil
	case isRetryFailure(err) || errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		// The real-time bound left no room for the next attempt.
		return behind, 0, nil
	}
	return 0, 0, err
}

// scheduled is a client's BackOff, keeping the client's schedule: each
// wait it hands httpretry moves the client's next request to after the
// answer's way back, the wait, and the request's way there. A request
// that would reach the server at or after the limit is not made: the
// BackOff stops the retries instead, and the client is unfinished.
type scheduled struct {
	backoff.BackOff
	c *liveClient
}

// Clone returns the copy a driver runs on: a copy of the wrapped BackOff
// (the BackOff itself if it has no Clone method) that keeps the same
// client's schedule. A client sends one request, so only one copy is ever
// in use.
func (p *scheduled) Clone() backoff.BackOff {
	inner := p.BackOff
	if c, ok := inner.(interface{ Clone() backoff.BackOff }); ok {
		inner = c.Clone()
	}
	return &scheduled{BackOff: inner, c: p.c}
}

// NextBackOff returns the BackOff's next wait, or backoff.Stop when the
// next request would reach the server at or after the limit.
func (p *scheduled) NextBackOff() time.Duration {
	d := p.BackOff.NextBackOff()
	switch {
	case d == backoff.Stop:
		p.c.stopped = true
		return d
	case d < 0:
		return d // httpretry reports it
	}
	next := sat(sat(sat(p.c.arrival, p.c.oneWay()), d), p.c.oneWay())
	if next >= p.c.limit {
		p.c.cutOff = true
		return backoff.Stop
	}
	p.c.arrival = next
	return d
}

// Validate reports what the wrapped BackOff's own Validate does, if it has
// one.
func (p *scheduled) Validate() error {
	if v, ok := p.BackOff.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

// stamper counts a client's requests and stamps each with the time it
// reaches the server on the client's schedule.
type stamper struct {
	base http.RoundTripper
	c    *liveClient
}

func (t stamper) RoundTrip(req *http.Request) (*http.Response, error) {
	t.c.tries++
	r := req.Clone(req.Context())
	r.Header.Set(arrivalHeader, strconv.FormatInt(int64(t.c.arrival), 10))
	return t.base.RoundTrip(r)
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
// fail: a 503 as its final answer, because its attempts ran out or the
// limit left no room for another.
func isRetryFailure(err error) bool {
	var s *statusError
	return errors.As(err, &s) && s.code == http.StatusServiceUnavailable
}

// sat returns t+d, saturating at the largest Duration.
func sat(t, d time.Duration) time.Duration {
	if d > math.MaxInt64-t {
		return math.MaxInt64
	}
	return t + d
}
