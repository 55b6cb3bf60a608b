package httpretry

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/hop"
)

// A response that says not to retry (X-Do-Not-Retry, or Envoy's
// X-Envoy-Overloaded) stops the Transport at once: the caller gets that
// response; the retry stage's Cause matches backoff.ErrRetriesCanceled
// and the attempt's error hop.ErrDoNotRetry.
func TestStopSignal(t *testing.T) {
	for _, c := range []struct{ header, value string }{
		{hop.StopHeader, hop.ReasonExhausted},
		{hop.StopHeader, ""},
		{hop.EnvoyOverloadedHeader, "true"},
	} {
		t.Run(c.header+"="+c.value, func(t *testing.T) {
			srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.Header()[c.header] = []string{c.value}
				w.WriteHeader(http.StatusServiceUnavailable)
			})
			rec := &recorder{}
			resp, err := get(t, NewTransport(srv.base, WithInstrumenter(rec), constantWait(0)), srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			states := rec.all()
			if resp.StatusCode != 503 || srv.hits.Load() != 1 || len(states) != 1 {
				t.Fatalf("got %s after %d requests, %d states; want the 503 after 1", resp.Status, srv.hits.Load(), len(states))
			}
			s := states[0]
			if !s.GivingUp || !errors.Is(s.Cause, backoff.ErrRetriesCanceled) {
				t.Errorf("the stage gave up with %v (GivingUp %v); want a Cause matching ErrRetriesCanceled", s.Cause, s.GivingUp)
			}
			var serr *StatusError
			if !errors.As(s.Err, &serr) || serr.StatusCode != 503 || !errors.Is(s.Err, hop.ErrDoNotRetry) {
				t.Errorf("the attempt's error is %v; want its *StatusError, matching hop.ErrDoNotRetry", s.Err)
			}
		})
	}
}

// A call made with a context that carries a hop.Tier marks it when it
// gives up on the tier below: after retrying, on a stop signal, on a
// guard's refusal; not when it did not retry, nor when it succeeded, nor
// when its own context ended.
func TestGiveUpMarksTheTier(t *testing.T) {
	fail := statusServer(t, http.StatusServiceUnavailable)
	stop := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set(hop.StopHeader, hop.ReasonOverloaded)
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	ok := statusServer(t, http.StatusOK)
	open := breaker.New(breaker.WithConsecutiveFailures(1))
	if p, err := open.Allow(context.Background(), guard.Call{Attempt: 1}); err == nil {
		open.Record(p, guard.Outcome{Err: errors.New("down")})
	}
	withBreaker := NewTransport(fail.base, constantWait(0), WithAttemptGuards(open))
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name   string
		rt     http.RoundTripper
		url    string
		ctx    context.Context
		reason string
	}{
		{"exhausted", NewTransport(fail.base, constantWait(0)), fail.URL, context.Background(), hop.ReasonExhausted},
		{"stopped", NewTransport(stop.base, constantWait(0)), stop.URL, context.Background(), hop.ReasonExhausted},
		{"refused", withBreaker, fail.URL, context.Background(), hop.ReasonOverloaded},
		{"no_retries", NewTransport(fail.base, WithMaxTries(1)), fail.URL, context.Background(), ""},
		{"success", NewTransport(ok.base), ok.URL, context.Background(), ""},
		{"caller_gone", NewTransport(fail.base, constantWait(0)), fail.URL, canceled, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var tier hop.Tier
			req, _ := http.NewRequestWithContext(hop.Track(c.ctx, &tier), http.MethodGet, c.url, nil)
			if resp, err := c.rt.RoundTrip(req); err == nil {
				resp.Body.Close()
			}
			if reason, _ := tier.Reason(); reason != c.reason {
				t.Errorf("the tier was given up with %q, want %q", reason, c.reason)
			}
		})
	}
}

// With WithAttemptTimeout, each attempt tells the server the time left of
// its own bound, not of the request's.
func TestAttemptTimeoutTravels(t *testing.T) {
	var got []hop.Caller
	base := roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		got = append(got, hop.ReadHeader(r.Header))
		return &http.Response{StatusCode: http.StatusServiceUnavailable, Body: http.NoBody}, nil
	})
	rt := NewTransport(base, noWait, WithAttemptTimeout(2*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1/", nil)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(got) != DefaultMaxTries {
		t.Fatalf("%d attempts, want %d", len(got), DefaultMaxTries)
	}
	for i, c := range got {
		if c.Attempt != i+1 || !c.HasTimeout || c.Timeout > 2*time.Second || c.Timeout < time.Second {
			t.Errorf("attempt %d told %+v; want its number and at most 2s left", i+1, c)
		}
	}
}
