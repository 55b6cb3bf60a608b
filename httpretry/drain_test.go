package httpretry

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
)

// stalledBody is a response body that delivers nothing until it is
// closed, as a server that trickles its body looks to a reader. It reports
// the first Read on reading.
type stalledBody struct {
	reading chan struct{}
	closed  chan struct{}
	once    atomic.Bool
	closes  atomic.Int32
}

func newStalledBody() *stalledBody {
	return &stalledBody{reading: make(chan struct{}, 1), closed: make(chan struct{})}
}

func (b *stalledBody) Read([]byte) (int, error) {
	select {
	case b.reading <- struct{}{}:
	default:
	}
	<-b.closed
	return 0, io.ErrClosedPipe
}

func (b *stalledBody) Close() error {
	if b.once.CompareAndSwap(false, true) {
		close(b.closed)
	}
	b.closes.Add(1)
	return nil
}

// Draining an intermediate response is bounded in time as well as in
// bytes: a body that does not come is closed after drainTimeout on the
// Transport's clock, and WithMaxElapsedTime is checked again after the
// drain, so that no retry starts past it.
func TestDrainIsBoundedInTime(t *testing.T) {
	for _, c := range []struct {
		name     string
		opts     []Option
		attempts int
	}{
		{"then retried", []Option{WithMaxElapsedTime(0)}, 2},
		{"then past the time limit", []Option{WithMaxElapsedTime(drainTimeout / 2)}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			clk := newSignalClock()
			body := newStalledBody()
			var calls atomic.Int32
			base := roundTripperFunc(func(r *http.Request) (*http.Response, error) {
				if calls.Add(1) == 1 {
					return &http.Response{StatusCode: 503, Header: http.Header{}, Body: body, Request: r}, nil
				}
				return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
			})
			opts := append([]Option{WithClock(clk), WithBackOff(backoff.NewConstantBackOff(time.Millisecond))}, c.opts...)
			req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
			done := goRoundTrip(NewTransport(base, opts...), req)
			<-body.reading // the drain is blocked on the body
			clk.Add(drainTimeout)
			var r result
			if c.attempts == 2 {
				d := <-clk.timers // the wait before the retry
				clk.Add(d)
				r = <-done
				if r.err != nil || r.resp.StatusCode != 200 {
					t.Fatalf("got %v, %v; want the retry's 200", r.resp, r.err)
				}
			} else {
				r = <-done
				var se *StatusError
				if r.resp != nil || !errors.Is(r.err, backoff.ErrMaxElapsedTime) || !errors.As(r.err, &se) || se.StatusCode != 503 {
					t.Fatalf("got %v, %v; want ErrMaxElapsedTime with the 503's *StatusError", r.resp, r.err)
				}
			}
			if int(calls.Load()) != c.attempts || body.closes.Load() == 0 {
				t.Errorf("%d attempts, body closed %d times; want %d attempts and the stalled body closed", calls.Load(), body.closes.Load(), c.attempts)
			}
			if r.resp != nil {
				r.resp.Body.Close()
			}
		})
	}
}

// A classifier that panics does not leak the response it was judging: it
// is closed before the panic goes on, and the connection with it, so no
// goroutine outlives the test (TestMain checks).
func TestPanickingClassifierClosesTheResponse(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	tracker := &closeTracker{base: srv.base}
	rt := NewTransport(tracker, noWait, WithRetryable(func(_ *http.Request, resp *http.Response, err error) bool {
		if resp != nil {
			panic("classifier bug")
		}
		return false
	}))
	for range 20 {
		func() {
			defer func() {
				if v := recover(); v != "classifier bug" {
					t.Errorf("recovered %v, want the classifier's panic", v)
				}
			}()
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL, nil)
			_, _ = rt.RoundTrip(req)
		}()
	}
	if closed, total := tracker.closed(); closed != total || total != 20 {
		t.Errorf("%d of %d responses closed, want all of 20", closed, total)
	}
}

// A panicking Instrumenter after a retryable response: the response is
// closed too.
func TestPanickingInstrumenterClosesTheResponse(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	tracker := &closeTracker{base: srv.base}
	rt := NewTransport(tracker, noWait, WithInstrumenter(panicking{}))
	func() {
		defer func() { _ = recover() }()
		_, _ = get(t, rt, srv.URL)
	}()
	if closed, total := tracker.closed(); closed != total || total != 1 {
		t.Errorf("%d of %d responses closed, want 1 of 1", closed, total)
	}
}

type panicking struct{}

func (panicking) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context { return ctx }
func (panicking) AfterAttempt(context.Context, backoff.State)                        { panic("instrumenter bug") }

// eventBody is a response body that runs onRead at its first Read, then
// ends, and counts its closes.
type eventBody struct {
	onRead func()
	read   bool
	closes atomic.Int32
}

func (b *eventBody) Read([]byte) (int, error) {
	if !b.read {
		b.read = true
		b.onRead()
	}
	return 0, io.EOF
}

func (b *eventBody) Close() error {
	b.closes.Add(1)
	return nil
}

// A response drained for a retry that is then not made is never handed to
// the caller: whether the request is cancelled during the drain, the drain
// takes the time WithMaxElapsedTime had left, or the drain panics, the
// caller gets the error (with the response's *StatusError as LastErr) or
// the panic, and the response's body is closed exactly once.
func TestDiscardedResponseIsNeverReturned(t *testing.T) {
	for _, c := range []struct {
		name   string
		onRead func(clk *skipClock, cancel context.CancelFunc)
		cause  error // nil: the drain panics
	}{
		{"cancelled_during_the_drain", func(_ *skipClock, cancel context.CancelFunc) { cancel() }, context.Canceled},
		{"drain_past_the_limit", func(clk *skipClock, _ context.CancelFunc) { clk.advance(time.Second) }, backoff.ErrMaxElapsedTime},
		{"drain_panics", func(*skipClock, context.CancelFunc) { panic("body bug") }, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			clk := newSkipClock()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var bodies []*eventBody
			base := roundTripperFunc(func(r *http.Request) (*http.Response, error) {
				b := &eventBody{onRead: func() { c.onRead(clk, cancel) }}
				bodies = append(bodies, b)
				return &http.Response{StatusCode: 503, Header: http.Header{}, Body: b, Request: r}, nil
			})
			rt := NewTransport(base, WithClock(clk), noWait, WithMaxElapsedTime(500*time.Millisecond))
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1/", nil)
			var resp *http.Response
			var err error
			panicked := func() (v any) {
				defer func() { v = recover() }()
				resp, err = rt.RoundTrip(req)
				return nil
			}()
			switch {
			case c.cause == nil:
				if panicked != "body bug" {
					t.Fatalf("recovered %v, want the body's panic", panicked)
				}
			case resp != nil || !errors.Is(err, c.cause):
				t.Fatalf("got %v, %v; want no response and an error matching %v", resp, err, c.cause)
			default:
				var se *StatusError
				if e := asBackoffError(t, err); !errors.As(e.LastErr, &se) || se.StatusCode != 503 || e.Attempts != 1 {
					t.Errorf("error %+v: want the 503's *StatusError as LastErr, after 1 attempt", err)
				}
			}
			if len(bodies) != 1 || bodies[0].closes.Load() != 1 {
				t.Errorf("%d responses, the first closed %d times; want 1, closed once", len(bodies), bodies[0].closes.Load())
			}
		})
	}
}
