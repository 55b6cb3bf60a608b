package httpretry

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

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
		{"zero_tries", []Option{WithMaxTries(0)}, "httpretry.WithMaxTries(0): a request needs at least one attempt"},
		{"negative_elapsed", []Option{WithMaxElapsedTime(-time.Second)}, "httpretry.WithMaxElapsedTime(-1s)"},
		{"negative_retry_after", []Option{WithMaxRetryAfter(-1)}, "httpretry.WithMaxRetryAfter(-1ns)"},
		{"nil_policy", []Option{WithPolicy(nil)}, "httpretry.WithPolicy was given a nil policy"},
		{"nil_backoff_factory", []Option{WithBackOff(nil)}, "httpretry.WithBackOff was given a nil function"},
		{"nil_backoff", []Option{WithBackOff(func() backoff.BackOff { return nil })}, "nil"},
		{"invalid_backoff", []Option{WithBackOff(func() backoff.BackOff { return backoff.NewConstantBackOff(-1) })}, "Interval is negative"},
		{"lowercase_method", []Option{WithRetryableMethods("GET", "post")}, `httpretry.WithRetryableMethods("post"): methods are case-sensitive; did you mean "POST"?`},
		{"bad_method", []Option{WithRetryableMethods("GE T")}, "not a valid method"},
		{"empty_method", []Option{WithRetryableMethods("")}, "not a valid method"},
		{"bad_header", []Option{WithIdempotencyKeyHeader("Idempotency Key")}, "not a valid header name"},
		{"nil_instrumenter", []Option{WithInstrumenter(nil)}, "httpretry.WithInstrumenter was given a nil Instrumenter"},
		{"nil_clock", []Option{WithClock(nil)}, "httpretry.WithClock was given a nil clock"},
		{"nil_option", []Option{nil}, "an httpretry.Option is nil"},
		{"first_reported", []Option{WithMaxTries(0), WithPolicy(nil)}, "WithMaxTries(0)"},
	}
	srv := statusServer(t, 200)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := &trackedBody{Reader: strings.NewReader("x")}
			req, _ := http.NewRequest(http.MethodPost, srv.URL, body)
			_, err := roundTrip(t, NewTransport(srv.base, c.opts...), req)
			if !errors.Is(err, ErrInvalidConfiguration) || !errors.Is(err, backoff.ErrInvalidConfiguration) {
				t.Fatalf("error %v does not match ErrInvalidConfiguration", err)
			}
			// One form, the core's: the sentinel's text, then the setting.
			if msg := err.Error(); !strings.HasPrefix(msg, "backoff: invalid configuration: ") ||
				strings.Count(msg, "invalid configuration") != 1 {
				t.Errorf("message %q: want the one form \"backoff: invalid configuration: <setting>...\"", msg)
			}
			mustContain(t, err.Error(), c.want)
			if !body.closed.Load() {
				t.Error("the body was not closed")
			}
		})
	}
	if srv.hits.Load() != 0 {
		t.Errorf("%d requests were sent", srv.hits.Load())
	}

	var zero Transport
	_, err := get(t, &zero, srv.URL)
	if !errors.Is(err, ErrInvalidConfiguration) {
		t.Errorf("the zero Transport gave %v, want ErrInvalidConfiguration", err)
	}
}

// The defaults: 3 attempts, full-jitter exponential waits from 100 ms,
// doubling, each capped at 5 s.
func TestDefaults(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	rec := &recorder{}
	rt := NewTransport(srv.base, WithInstrumenter(rec), WithMaxTries(10))
	resp, err := do(t, rt, backoff.WithTestingBypass(context.Background()), http.MethodGet, srv.URL, nil)
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
	resp, err = do(t, NewTransport(srv.base), backoff.WithTestingBypass(context.Background()), http.MethodGet, srv.URL, nil)
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

// The factory given to WithBackOff is called once per request.
func TestBackOffFactoryPerRequest(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	calls := 0
	rt := NewTransport(srv.base, WithBackOff(func() backoff.BackOff {
		calls++
		return &backoff.ZeroBackOff{}
	}))
	for range 3 {
		resp, err := get(t, rt, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if calls != 3 {
		t.Errorf("the factory was called %d times for 3 requests", calls)
	}
}

// A policy that says Stop ends the retries like an exhausted budget.
func TestBackOffStop(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	rt := NewTransport(srv.base, WithBackOff(func() backoff.BackOff { return &backoff.StopBackOff{} }))
	resp, err := get(t, rt, srv.URL)
	if err != nil || resp.StatusCode != 503 || srv.hits.Load() != 1 {
		t.Errorf("got %v, %v after %d requests; want the first 503", resp, err, srv.hits.Load())
	}
}
