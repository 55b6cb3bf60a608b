package httpretry

import (
	"context"
	"errors"
	"io"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
)

// Cancelling the context during a wait ends it at once: RoundTrip returns
// an error matching context.Canceled and closes the response it held.
func TestCancelDuringWait(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	tracker := &closeTracker{base: srv.base}
	rec := &recorder{retries: make(chan backoff.State, 1)}
	rt := NewTransport(tracker, constantWait(time.Hour), WithInstrumenter(rec))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	done := goRoundTrip(rt, req)
	select {
	case s := <-rec.retries:
		if s.NextDelay != time.Hour {
			t.Fatalf("waiting %v, want 1h", s.NextDelay)
		}
	case r := <-done:
		t.Fatalf("RoundTrip returned %v, %v before waiting", r.resp, r.err)
	}
	cancel()
	r := <-done
	if r.resp != nil || !errors.Is(r.err, context.Canceled) {
		t.Fatalf("got %v, %v; want an error matching context.Canceled", r.resp, r.err)
	}
	var se *StatusError
	if !errors.As(r.err, &se) || se.StatusCode != 503 {
		t.Errorf("error %v does not carry the last attempt's 503", r.err)
	}
	if closed, total := tracker.closed(); closed != 1 || total != 1 {
		t.Errorf("%d of %d responses closed, want 1 of 1", closed, total)
	}
	if srv.hits.Load() != 1 {
		t.Errorf("%d requests, want 1", srv.hits.Load())
	}
}

// A context cancelled before RoundTrip sends nothing and closes the body.
func TestAlreadyCancelled(t *testing.T) {
	srv := statusServer(t, 200)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	body := &trackedBody{Reader: eofReader{}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, body)
	_, err := roundTrip(t, NewTransport(srv.base), req)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v does not match context.Canceled", err)
	}
	if !body.closed.Load() || srv.hits.Load() != 0 {
		t.Errorf("body closed %v, %d requests; want closed and none", body.closed.Load(), srv.hits.Load())
	}
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// A wait that would end after the context's deadline is not started: the
// caller gets the last response at once, or, without one, an error
// matching context.DeadlineExceeded that wraps the last transport error.
func TestDeadlineTooCloseForTheWait(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	srv := statusServer(t, http.StatusServiceUnavailable)
	resp, err := do(t, NewTransport(srv.base, constantWait(time.Hour)), ctx, http.MethodGet, srv.URL, nil)
	if err != nil || resp.StatusCode != 503 || srv.hits.Load() != 1 {
		t.Fatalf("got %v, %v after %d requests; want the first 503", resp, err, srv.hits.Load())
	}

	// The server's own wait is treated the same way (with no time budget,
	// which would refuse it too).
	srv = retryAfterServer(t, 503, "120", time.Time{})
	resp, err = do(t, NewTransport(srv.base, WithMaxRetryAfter(time.Hour), WithMaxElapsedTime(0)), ctx, http.MethodGet, srv.URL, nil)
	if err != nil || resp.StatusCode != 503 || srv.hits.Load() != 1 {
		t.Fatalf("Retry-After: got %v, %v after %d requests; want the first 503", resp, err, srv.hits.Load())
	}

	base := &http.Transport{}
	defer base.CloseIdleConnections()
	_, err = do(t, NewTransport(base, constantWait(time.Hour)), ctx, http.MethodGet, deadURL(t), nil)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("error %v does not match both context.DeadlineExceeded and the refusal", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the deadline passed: RoundTrip waited for it")
	}
}

// headerTimeout is the error net/http's Transport returns when
// ResponseHeaderTimeout expires: a timeout that matches
// context.DeadlineExceeded while the request's context is alive.
type headerTimeout struct{}

func (headerTimeout) Error() string        { return "net/http: timeout awaiting response headers" }
func (headerTimeout) Timeout() bool        { return true }
func (headerTimeout) Temporary() bool      { return true }
func (headerTimeout) Is(target error) bool { return target == context.DeadlineExceeded }

// An error matching context.DeadlineExceeded, such as net/http's own
// response-header timeout, is an ordinary failure while the request's
// context is alive, and is retried: cancellation is decided by the
// context, not by the error.
func TestHeaderTimeoutIsRetried(t *testing.T) {
	sent := 0
	base := roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		sent++
		if sent == 1 {
			return nil, headerTimeout{}
		}
		return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
	})
	rec := &recorder{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	resp, err := do(t, NewTransport(base, noWait, WithInstrumenter(rec)), ctx, http.MethodGet, "http://127.0.0.1/", nil)
	if err != nil || resp.StatusCode != 200 || sent != 2 {
		t.Fatalf("got %v, %v after %d requests; want the 200 after 2", resp, err, sent)
	}
	if s := rec.all(); !errors.Is(s[0].Err, context.DeadlineExceeded) {
		t.Errorf("the first attempt failed with %v, want the header timeout", s[0].Err)
	}
}

// The same with net/http's real header timeout, on its shortest setting, so
// that the test spends about a millisecond: the first attempt goes through
// a transport with a 1 ms ResponseHeaderTimeout to a handler that does not
// answer, the retry through one without a timeout.
func TestRealHeaderTimeoutIsRetried(t *testing.T) {
	release := make(chan struct{})
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		io.WriteString(w, "ok")
	})
	t.Cleanup(func() { close(release) })
	impatient := &http.Transport{ResponseHeaderTimeout: time.Millisecond}
	defer impatient.CloseIdleConnections()
	sent := 0
	base := roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		sent++
		if sent == 1 {
			return impatient.RoundTrip(r)
		}
		return srv.base.RoundTrip(r)
	})
	rec := &recorder{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	resp, err := do(t, NewTransport(base, noWait, WithInstrumenter(rec)), ctx, http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if body := readBody(t, resp); body != "ok" || sent != 2 {
		t.Errorf("body %q after %d requests; want ok after 2", body, sent)
	}
	if s := rec.all(); !errors.Is(s[0].Err, context.DeadlineExceeded) {
		t.Errorf("the first attempt failed with %v, want net/http's header timeout", s[0].Err)
	}
}

// WithMaxElapsedTime stops before a wait that would overrun it, with the
// last response, or an error matching backoff.ErrMaxElapsedTime.
func TestMaxElapsedTime(t *testing.T) {
	clk := newSignalClock()
	srv := statusServer(t, http.StatusServiceUnavailable)
	rt := NewTransport(srv.base, WithClock(clk), constantWait(2*time.Second), WithMaxTries(10), WithMaxElapsedTime(3*time.Second))
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	done := goRoundTrip(rt, req)
	if d := <-clk.timers; d != 2*time.Second {
		t.Fatalf("waiting %v, want 2s", d)
	}
	clk.Add(2 * time.Second)
	r := <-done // the second wait would end at 4s
	if r.err != nil {
		t.Fatal(r.err)
	}
	if body := readBody(t, r.resp); body != "2" {
		t.Errorf("got the response to request %s, want 2", body)
	}

	base := &http.Transport{}
	defer base.CloseIdleConnections()
	rt = NewTransport(base, constantWait(2*time.Second), WithMaxElapsedTime(time.Second))
	_, err := get(t, rt, deadURL(t))
	if !errors.Is(err, backoff.ErrMaxElapsedTime) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("error %v does not match both backoff.ErrMaxElapsedTime and the refusal", err)
	}
}

// Cancelling the context during an attempt ends the request with an error
// matching context.Canceled, whatever the attempt returned: a transport
// error, or a retryable response, which is closed.
func TestCancelDuringAttempt(t *testing.T) {
	arrived := make(chan struct{}, 1)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		arrived <- struct{}{}
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	done := goRoundTrip(NewTransport(srv.base, noWait), req)
	<-arrived
	cancel()
	r := <-done
	if r.resp != nil || !errors.Is(r.err, context.Canceled) {
		t.Fatalf("got %v, %v; want an error matching context.Canceled", r.resp, r.err)
	}
	if e := asBackoffError(t, r.err); e.Attempts != 1 || !errors.Is(e.Cause, context.Canceled) {
		t.Errorf("error %+v: want the cancellation as the cause, after 1 attempt", r.err)
	}

	srv = statusServer(t, http.StatusServiceUnavailable)
	tracker := &closeTracker{base: srv.base}
	cancelling := roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := tracker.RoundTrip(req)
		cancel()
		return resp, err
	})
	for i, method := range []string{http.MethodGet, http.MethodPost} {
		ctx, cancel = context.WithCancel(context.Background())
		defer cancel()
		_, err := do(t, NewTransport(cancelling, noWait), ctx, method, srv.URL, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: error %v does not match context.Canceled", method, err)
		}
		if closed, total := tracker.closed(); closed != i+1 || total != i+1 {
			t.Errorf("%s: %d of %d responses closed, want all", method, closed, total)
		}
	}
}

// A nil request is reported, not a crash.
func TestNilRequest(t *testing.T) {
	resp, err := NewTransport(nil).RoundTrip(nil)
	if resp != nil || !errors.Is(err, ErrInvalidConfiguration) {
		t.Fatalf("got %v, %v; want an error", resp, err)
	}
	mustContain(t, err.Error(), "backoff: invalid configuration: httpretry: RoundTrip was given a nil request")
}

// With WithClock, the context's deadline is read on the clock: a deadline
// made by the mock's WithTimeout that leaves less than the wait refuses it
// at once, though wall-clock time is far from the mock's. The mock is set
// decades ahead, so reading the deadline on the time package would start
// the wait.
func TestMockClockDeadline(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer func(*http.Request) (*http.Response, error)
	}{
		{"retry_after", func(r *http.Request) (*http.Response, error) {
			h := http.Header{}
			h.Set("Retry-After", "120")
			return &http.Response{StatusCode: 503, Header: h, Body: http.NoBody, Request: r}, nil
		}},
		{"computed_wait", func(*http.Request) (*http.Response, error) { return nil, syscall.ECONNREFUSED }},
	} {
		t.Run(c.name, func(t *testing.T) {
			clk := newSignalClock()
			clk.Set(time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))
			ctx, cancel := clk.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			sent := 0
			base := roundTripperFunc(func(r *http.Request) (*http.Response, error) {
				sent++
				return c.answer(r)
			})
			rt := NewTransport(base, WithClock(clk), constantWait(time.Hour), WithMaxRetryAfter(time.Hour))
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1/", nil)
			var r result
			select {
			case r = <-goRoundTrip(rt, req):
			case d := <-clk.timers:
				cancel()
				t.Fatalf("a wait of %v started, with a minute left before the deadline", d)
			}
			if c.name == "retry_after" {
				if r.err != nil || r.resp.StatusCode != 503 {
					t.Errorf("got %v, %v; want the 503", r.resp, r.err)
				}
			} else if !errors.Is(r.err, context.DeadlineExceeded) || !errors.Is(r.err, syscall.ECONNREFUSED) {
				t.Errorf("error %v does not match both context.DeadlineExceeded and the refusal", r.err)
			}
			if sent != 1 || ctx.Err() != nil {
				t.Errorf("%d requests, context error %v; want 1 and none", sent, ctx.Err())
			}
		})
	}
}
