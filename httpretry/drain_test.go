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
// Transport's clock, and the time limits are checked again after the
// drain, so that no retry starts past them.
func TestDrainIsBoundedInTime(t *testing.T) {
	for _, c := range []struct {
		name     string
		opts     []Option
		attempts int
	}{
		{"then retried", []Option{WithMaxRetryTime(0)}, 2},
		{"then past the time limit", []Option{WithMaxRetryTime(drainTimeout / 2)}, 1},
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
