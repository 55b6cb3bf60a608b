package main

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/herdsafe/backoff/httpretry"
)

// transportTarget calls through an http.Client whose Transport is
// httpretry.NewTransport over the counting base.
type transportTarget struct {
	url    string
	bt     *counting
	client *http.Client
}

func newTransportTarget(cfg config, url string, base *counting) *transportTarget {
	rt := httpretry.NewTransport(base,
		httpretry.WithMaxTries(uint(cfg.maxTries)),
		httpretry.WithBackOff(newBackOff(cfg)),
	)
	return &transportTarget{url: url, bt: base, client: &http.Client{Transport: rt}}
}

// call GETs the URL and reads the body. A call completes only with a 200
// read to its end. The response the Transport hands back when its retries
// ran out on a 503 is a failure of its own kind, and so is a body that
// could not be read.
func (t *transportTarget) call(ctx context.Context) outcome {
	var n atomic.Int32
	ctx = withCounter(ctx, &n)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.url, nil)
	if err != nil {
		return outcome{cause: causeNotBackoffError, err: err, reported: -1}
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return failedWith(err, n.Load())
	}
	_, rerr := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	o := outcome{attempts: int(n.Load()), reported: -1}
	switch {
	case rerr != nil:
		o.cause, o.err = bodyCause(ctx), rerr
	case resp.StatusCode != http.StatusOK:
		o.cause, o.err = causeStatus, &statusError{code: resp.StatusCode}
	default:
		o.ok = true
	}
	return o
}

func (t *transportTarget) close() { t.client.CloseIdleConnections() }

func (t *transportTarget) base() *counting { return t.bt }

func (t *transportTarget) check() (problems, figures []string) { return nil, nil }
