package httpretry

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
)

// An Instrumenter sees each attempt's number, its status and the wait
// before the next; a logger records each retry and the final stop.
func TestInstrumentation(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		switch n {
		case 1:
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			w.WriteHeader(http.StatusBadGateway)
		}
	})
	rec := &recorder{}
	var logs bytes.Buffer
	rt := NewTransport(srv.base, constantWait(time.Second), WithInstrumenter(rec), WithName("payments"), WithClock(newSkipClock()), exactRetryAfter,
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	resp, err := get(t, rt, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	want := []struct {
		attempt  int
		status   int
		delay    time.Duration
		givingUp bool
	}{
		{1, 429, 2 * time.Second, false},
		{2, 502, time.Second, false},
		{3, 502, 0, true},
	}
	got := rec.all()
	if len(got) != len(want) {
		t.Fatalf("%d states, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		s := got[i]
		var se *StatusError
		if !errors.As(s.Err, &se) || se.StatusCode != w.status || s.Number != w.attempt ||
			s.NextDelay != w.delay || s.GivingUp != w.givingUp {
			t.Errorf("state %d: %+v, want attempt %d, status %d, delay %v, giving up %v", i, s, w.attempt, w.status, w.delay, w.givingUp)
		}
	}
	if se := new(StatusError); !errors.As(got[0].Err, &se) || se.RetryAfter != 2*time.Second {
		t.Errorf("the first StatusError does not record the server's Retry-After")
	}
	if !errors.Is(got[2].Cause, backoff.ErrExhausted) {
		t.Errorf("gave up because of %v, want backoff.ErrExhausted", got[2].Cause)
	}
	out := logs.String()
	mustContain(t, out, "retry.name=payments")
	mustContain(t, out, "retry.delay=2s")
	mustContain(t, out, "429 Too Many Requests")
	mustContain(t, out, "giving up")
}
