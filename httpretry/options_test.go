package httpretry

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
)

// Every invalid setting is reported by RoundTrip, which sends nothing and
// closes the body.
func TestInvalidConfiguration(t *testing.T) {
	cases := []struct {
		name string
		opts []Option
		want string
	}{
		{"negative_elapsed", []Option{WithMaxElapsedTime(-time.Second)}, "httpretry: WithMaxElapsedTime was given a negative duration (-1s)"},
		{"negative_retry_after", []Option{WithMaxRetryAfter(-1)}, "httpretry: WithMaxRetryAfter was given a negative duration (-1ns)"},
		{"nil_classifier", []Option{WithRetryable(nil)}, "httpretry: WithRetryable was given a nil classifier"},
		{"nil_backoff", []Option{WithBackOff(nil)}, "httpretry: WithBackOff was given a nil BackOff"},
		{"typed_nil_backoff", []Option{WithBackOff((*backoff.ExponentialBackOff)(nil))}, "nil *ExponentialBackOff"},
		{"typed_nil_constant", []Option{WithBackOff((*backoff.ConstantBackOff)(nil))}, "nil *ConstantBackOff"},
		{"typed_nil_own_backoff", []Option{WithBackOff((*cloningBackOff)(nil))}, "httpretry: WithBackOff: the BackOff is a nil *httpretry.cloningBackOff"},
		{"backoff_without_clone", []Option{WithBackOff(plainBackOff{})}, "has no Clone method"},
		{"invalid_backoff", []Option{WithBackOff(backoff.NewConstantBackOff(-1))}, "Interval is negative"},
		{"lowercase_method", []Option{WithRetryableMethods("GET", "post")}, `httpretry: WithRetryableMethods was given "post": methods are case-sensitive; did you mean "POST"?`},
		{"bad_method", []Option{WithRetryableMethods("GE T")}, `httpretry: WithRetryableMethods was given "GE T", which is not a valid method`},
		{"empty_method", []Option{WithRetryableMethods("")}, "not a valid method"},
		{"bad_header", []Option{WithIdempotencyKeyHeader("Idempotency Key")}, `httpretry: WithIdempotencyKeyHeader was given "Idempotency Key", which is not a valid header name`},
		{"nil_instrumenter", []Option{WithInstrumenter(nil)}, "httpretry: WithInstrumenter was given a nil Instrumenter"},
		{"nil_clock", []Option{WithClock(nil)}, "httpretry: WithClock was given a nil clock"},
		{"typed_nil_clock", []Option{WithClock((*clock.Mock)(nil))}, "httpretry: WithClock was given a nil *clock.Mock"},
		{"typed_nil_instrumenter", []Option{WithInstrumenter((*recordingInstrumenter)(nil))}, "httpretry: WithInstrumenter was given a nil Instrumenter"},
		{"nil_option", []Option{nil}, "httpretry: NewTransport was given a nil Option"},
		{"first_reported", []Option{WithMaxElapsedTime(-1), WithRetryable(nil)}, "WithMaxElapsedTime"},
	}
	srv := statusServer(t, 200)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := invalidRoundTrip(t, srv, c.opts, c.want)
			if !errors.Is(err, backoff.ErrInvalidConfiguration) {
				t.Fatalf("error %v does not match backoff.ErrInvalidConfiguration", err)
			}
			// One form, the core's: the sentinel's text, then the setting.
			if msg := err.Error(); !strings.HasPrefix(msg, "backoff: invalid configuration: ") ||
				strings.Count(msg, "invalid configuration") != 1 {
				t.Errorf("message %q: want the one form \"backoff: invalid configuration: <setting>...\"", msg)
			}
		})
	}
	if srv.hits.Load() != 0 {
		t.Errorf("%d requests were sent", srv.hits.Load())
	}

	for _, rt := range []*Transport{{}, nil} {
		body := &trackedBody{Reader: strings.NewReader("x")}
		req, _ := http.NewRequest(http.MethodPost, srv.URL, body)
		_, err := rt.RoundTrip(req)
		if !errors.Is(err, ErrInvalidConfiguration) || !strings.HasSuffix(err.Error(), "httpretry: a zero or nil Transport; make one with NewTransport") {
			t.Errorf("the Transport %#v gave %v, want ErrInvalidConfiguration saying it was not made by NewTransport", rt, err)
		}
		if !body.closed.Load() {
			t.Error("the body was not closed")
		}
	}
	if srv.hits.Load() != 0 {
		t.Errorf("%d requests were sent", srv.hits.Load())
	}
}

// The defaults: 3 attempts, full-jitter exponential waits from 100 ms,
// doubling, each capped at 5 s (the 30 s budget is TestDefaultMaxElapsedTime's).
func TestDefaults(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	rec := &recorder{}
	rt := NewTransport(srv.base, WithInstrumenter(rec), WithMaxTries(10), WithClock(newSkipClock()))
	resp, err := get(t, rt, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	caps := []time.Duration{100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000}
	d := rec.delays()
	if len(d) != len(caps) {
		t.Fatalf("%d retries, want %d", len(d), len(caps))
	}
	for i, c := range caps {
		if d[i] < 0 || d[i] > c*time.Millisecond {
			t.Errorf("wait %d is %v, outside [0, %v]", i+1, d[i], c*time.Millisecond)
		}
	}

	srv = statusServer(t, http.StatusServiceUnavailable)
	resp, err = get(t, NewTransport(srv.base, WithClock(newSkipClock())), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if srv.hits.Load() != DefaultMaxTries {
		t.Errorf("%d attempts by default, want %d", srv.hits.Load(), DefaultMaxTries)
	}

	b, ok := DefaultBackOff().(*backoff.ExponentialBackOff)
	if !ok || b.InitialInterval != 100*time.Millisecond || b.MaxInterval != 5*time.Second ||
		b.Multiplier != 2 || b.Jitter != backoff.FullJitter {
		t.Errorf("DefaultBackOff() = %+v", DefaultBackOff())
	}
}

// By default a request may spend 30 s, counted from the call to RoundTrip,
// its first attempt included: no wait is started that would end after that,
// and the caller gets the last response.
func TestDefaultMaxElapsedTime(t *testing.T) {
	if DefaultMaxElapsedTime != 30*time.Second {
		t.Errorf("DefaultMaxElapsedTime is %v, want 30s", DefaultMaxElapsedTime)
	}
	for _, c := range []struct {
		name     string
		first    time.Duration // how long the first attempt takes
		attempts int
	}{
		{"waits_up_to_the_limit", 0, 4}, // waits end at 10, 20 and 30 s; the next would end at 40 s
		{"first_attempt_counts", 25 * time.Second, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			clk := newSkipClock()
			n := 0
			base := roundTripperFunc(func(r *http.Request) (*http.Response, error) {
				n++
				if n == 1 {
					clk.advance(c.first)
				}
				return &http.Response{StatusCode: 503, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
			})
			rec := &recorder{}
			rt := NewTransport(base, WithClock(clk), WithBackOff(backoff.NewConstantBackOff(10*time.Second)),
				WithMaxTries(0), WithInstrumenter(rec))
			req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
			resp, err := roundTrip(t, rt, req)
			if err != nil || resp.StatusCode != 503 || n != c.attempts {
				t.Fatalf("got %v, %v after %d attempts; want the last 503 after %d", resp, err, n, c.attempts)
			}
			if s := rec.all(); !s[len(s)-1].GivingUp || !errors.Is(s[len(s)-1].Cause, backoff.ErrMaxElapsedTime) {
				t.Errorf("the last state is %+v; want a give-up for backoff.ErrMaxElapsedTime", s[len(s)-1])
			}
			if waits := clk.slept(); len(waits) != c.attempts-1 {
				t.Errorf("waits %v, want %d", waits, c.attempts-1)
			}
		})
	}
}

// Each request runs on its own clone of the BackOff given to WithBackOff:
// one request's retries never consume another's, and the value given is
// never called.
func TestBackOffClonedPerRequest(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	b := &countingBackOff{}
	rt := NewTransport(srv.base, WithBackOff(b))
	for range 3 {
		resp, err := get(t, rt, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if b.clones.Load() != 3 || b.calls != 0 {
		t.Errorf("%d clones for 3 requests, %d calls of the value given; want 3 and 0", b.clones.Load(), b.calls)
	}
	if srv.hits.Load() != 3*DefaultMaxTries {
		t.Errorf("%d attempts, want %d: every request its full budget", srv.hits.Load(), 3*DefaultMaxTries)
	}
}

// countingBackOff waits nothing and counts its clones.
type countingBackOff struct {
	clones atomic.Int64
	calls  int
}

func (b *countingBackOff) NextBackOff() time.Duration { b.calls++; return 0 }
func (b *countingBackOff) Reset()                     {}
func (b *countingBackOff) Clone() backoff.BackOff {
	b.clones.Add(1)
	return &countingBackOff{}
}

// WithMaxTries(0) means no limit but WithMaxElapsedTime and the context, as
// in the core package.
func TestMaxTriesZero(t *testing.T) {
	srv := flakyServer(t, 7, http.StatusServiceUnavailable)
	resp, err := get(t, NewTransport(srv.base, noWait, WithMaxTries(0)), srv.URL)
	if err != nil || resp.StatusCode != 200 || srv.hits.Load() != 8 {
		t.Errorf("got %v, %v after %d requests; want the 200 at the 8th", resp, err, srv.hits.Load())
	}
}

// A policy that says Stop ends the retries like an exhausted budget.
func TestBackOffStop(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	rt := NewTransport(srv.base, WithBackOff(&backoff.StopBackOff{}))
	resp, err := get(t, rt, srv.URL)
	if err != nil || resp.StatusCode != 503 || srv.hits.Load() != 1 {
		t.Errorf("got %v, %v after %d requests; want the first 503", resp, err, srv.hits.Load())
	}
}

// plainBackOff is a BackOff without a Clone method.
type plainBackOff struct{}

// cloningBackOff is a BackOff of a caller's own, with a Clone method that
// reads its receiver.
type cloningBackOff struct{ wait time.Duration }

func (b *cloningBackOff) NextBackOff() time.Duration { return b.wait }
func (b *cloningBackOff) Reset()                     {}
func (b *cloningBackOff) Clone() backoff.BackOff     { c := *b; return &c }

// recordingInstrumenter is an Instrumenter of a caller's own.
type recordingInstrumenter struct{ n int }

func (r *recordingInstrumenter) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context {
	r.n++
	return ctx
}
func (r *recordingInstrumenter) AfterAttempt(context.Context, backoff.State) {}

func (plainBackOff) NextBackOff() time.Duration { return 0 }
func (plainBackOff) Reset()                     {}
