package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/herdsafe/backoff"
)

// target is what callers call: one of the two modes.
type target interface {
	// call makes one call with ctx and reports how it ended.
	call(ctx context.Context) outcome
	// close closes the idle connections. Every call has returned.
	close()
	// base is the counting base transport.
	base() *counting
	// check reports what the target's own state says is wrong once every
	// call has returned (a guard still holding a slot), and figures of its
	// own for the report.
	check() (problems []string, figures []string)
}

// newTarget returns the target of cfg's mode, calling url.
func newTarget(cfg config, url string) (target, error) {
	base := newCounting(cfg)
	if cfg.mode == modePolicy {
		return newPolicyTarget(cfg, url, base)
	}
	return newTransportTarget(cfg, url, base), nil
}

// newBackOff is the schedule of both modes: full jitter, doubling.
func newBackOff(cfg config) *backoff.ExponentialBackOff {
	b := backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(cfg.boInitial),
		backoff.WithMaxInterval(cfg.boMax),
		backoff.WithMultiplier(2),
	)
	b.Jitter = backoff.FullJitter
	return b
}

// counting is the base RoundTripper of both modes: an *http.Transport
// that counts the requests made through it, in all, for each call, and by
// how they ended.
type counting struct {
	t      *http.Transport
	made   atomic.Uint64
	ends   [numEnds]atomic.Uint64
	sample atomic.Pointer[string] // the message of an error counted as endOther
}

func newCounting(cfg config) *counting {
	return &counting{t: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        0, // no limit but the one per host
		MaxIdleConnsPerHost: max(cfg.maxConns, 1000),
		MaxConnsPerHost:     cfg.maxConns,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
	}}
}

// attemptsKey is the context key of a call's attempt counter.
type attemptsKey struct{}

// withCounter returns ctx carrying n, the counter of a call's attempts.
func withCounter(ctx context.Context, n *atomic.Int32) context.Context {
	return context.WithValue(ctx, attemptsKey{}, n)
}

func (c *counting) RoundTrip(req *http.Request) (*http.Response, error) {
	c.made.Add(1)
	if n, ok := req.Context().Value(attemptsKey{}).(*atomic.Int32); ok {
		n.Add(1)
	}
	resp, err := c.t.RoundTrip(req)
	e := endOf(req.Context(), resp, err)
	c.ends[e].Add(1)
	if e == endOther {
		msg := err.Error()
		c.sample.CompareAndSwap(nil, &msg)
	}
	return resp, err
}

// end is how one request through the base transport ended.
type end uint8

const (
	end200      end = iota
	end503          // 503 Service Unavailable
	endStatus       // another status
	endReset        // connection reset, or closed before the response
	endCanceled     // the attempt's context was cancelled
	endDeadline     // the attempt's context's deadline passed
	endOther        // any other transport error
	numEnds
)

var endNames = [numEnds]string{"200", "503", "other status", "reset or EOF", "canceled", "deadline", "other error"}

func (e end) String() string { return endNames[e] }

// endOf says how a round trip with the context ctx ended.
func endOf(ctx context.Context, resp *http.Response, err error) end {
	switch {
	case err == nil && resp.StatusCode == http.StatusOK:
		return end200
	case err == nil && resp.StatusCode == http.StatusServiceUnavailable:
		return end503
	case err == nil:
		return endStatus
	case ctx.Err() == context.Canceled:
		return endCanceled
	case ctx.Err() == context.DeadlineExceeded:
		return endDeadline
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return endReset
	}
	return endOther
}

// endCounts reads the counts of ends, and the sample of endOther.
func (c *counting) endCounts() (n [numEnds]uint64, other string) {
	for i := range n {
		n[i] = c.ends[i].Load()
	}
	if p := c.sample.Load(); p != nil {
		other = *p
	}
	return n, other
}

// CloseIdleConnections closes the transport's idle connections; the
// retrying Transport forwards its own call here.
func (c *counting) CloseIdleConnections() { c.t.CloseIdleConnections() }

// statusError is the failure of a call that got a response other than 200.
type statusError struct{ code int }

func (e *statusError) Error() string { return "status " + strconv.Itoa(e.code) }

// failedWith is the outcome of a call that failed with err after n
// attempts.
func failedWith(err error, n int32) outcome {
	c, e, ok := classify(err)
	o := outcome{cause: c, err: err, attempts: int(n), reported: -1}
	if ok {
		o.reported = e.Attempts
	}
	return o
}
