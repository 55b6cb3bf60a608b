package httpretry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
)

// statusRecorder is an Instrumenter that records AttemptStatus in each
// AfterAttempt, with the contexts it saw.
type statusRecorder struct {
	mu   sync.Mutex
	seen []seenStatus
	ctxs []context.Context
}

type seenStatus struct {
	attempt  int
	status   int
	ok       bool
	givingUp bool
}

func (r *statusRecorder) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context {
	if code, ok := AttemptStatus(ctx); ok {
		panic("a status before the attempt: " + itoa(code))
	}
	return context.WithValue(ctx, r, true) // a context derived from the Transport's
}

func (r *statusRecorder) AfterAttempt(ctx context.Context, s backoff.State) {
	code, ok := AttemptStatus(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, seenStatus{s.Number, code, ok, s.GivingUp})
	r.ctxs = append(r.ctxs, ctx)
}

func (r *statusRecorder) all() []seenStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seenStatus(nil), r.seen...)
}

func sameStatuses(a, b []seenStatus) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// An Instrumenter learns the status of every attempt through AttemptStatus,
// the last one's included, whose State.Err is nil; and none for an attempt
// that failed with a transport error.
func TestAttemptStatus(t *testing.T) {
	statuses := []int{503, 0, 429, 404} // 0: a connection reset
	base := scriptedBase(statuses)
	rec := &statusRecorder{}
	other := &recorder{}
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	resp, err := roundTrip(t, NewTransport(base, noWait, WithMaxTries(4), WithInstrumenter(rec), WithInstrumenter(other)), req)
	if err != nil || resp.StatusCode != 404 {
		t.Fatalf("got %v, %v; want the 404", resp, err)
	}
	want := []seenStatus{{1, 503, true, false}, {2, 0, false, false}, {3, 429, true, false}, {4, 404, true, false}}
	if got := rec.all(); !sameStatuses(got, want) {
		t.Errorf("AfterAttempt saw %+v, want %+v", got, want)
	}
	if s := other.all(); len(s) != 4 || s[3].Err != nil {
		t.Errorf("the last attempt's State is %+v; want it to carry no error", s)
	}
	// Each attempt has a context of its own: one kept from an attempt
	// keeps that attempt's status.
	if code, ok := AttemptStatus(rec.ctxs[0]); !ok || code != 503 {
		t.Errorf("the first attempt's context now says %d, %v; want 503", code, ok)
	}
	if code, ok := AttemptStatus(req.Context()); ok || code != 0 {
		t.Errorf("the caller's context says %d, %v; want no status", code, ok)
	}
	var nilContext context.Context
	if code, ok := AttemptStatus(nilContext); ok || code != 0 {
		t.Errorf("a nil context says %d, %v; want no status", code, ok)
	}
}

// When the request is cancelled during a wait, the giving-up report of the
// last attempt still carries that attempt's status.
func TestAttemptStatusOnCancel(t *testing.T) {
	srv := statusServer(t, http.StatusServiceUnavailable)
	rec := &statusRecorder{}
	waiting := &recorder{retries: make(chan backoff.State, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	done := goRoundTrip(NewTransport(srv.base, constantWait(time.Hour), WithInstrumenter(rec), WithInstrumenter(waiting)), req)
	<-waiting.retries
	cancel()
	if r := <-done; !errors.Is(r.err, context.Canceled) {
		t.Fatalf("got %v, %v; want an error matching context.Canceled", r.resp, r.err)
	}
	want := []seenStatus{{1, 503, true, false}, {1, 503, true, true}}
	if got := rec.all(); !sameStatuses(got, want) {
		t.Errorf("AfterAttempt saw %+v, want %+v", got, want)
	}
}

// The records of WithLogger carry the attempt's status, when it got a
// response, as http.status; with no Instrumenter too.
func TestLoggerRecordsStatus(t *testing.T) {
	statuses := []int{503, 0, 502}
	base := scriptedBase(statuses)
	var logs bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&logs, nil)).With("component", "test")
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	resp, err := roundTrip(t, NewTransport(base, noWait, WithLogger(l)), req)
	if err != nil || resp.StatusCode != 502 {
		t.Fatalf("got %v, %v; want the 502", resp, err)
	}
	type record struct {
		Msg       string
		Attempt   int    `json:"retry.attempt"`
		Status    *int   `json:"http.status"`
		Component string `json:"component"`
	}
	var got []record
	for line := range strings.Lines(logs.String()) {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		got = append(got, r)
	}
	wantStatus := []int{503, 0, 502}
	wantMsg := []string{"retrying", "retrying", "giving up"}
	if len(got) != 3 {
		t.Fatalf("%d records, want 3:\n%s", len(got), logs.String())
	}
	for i, r := range got {
		status := 0
		if r.Status != nil {
			status = *r.Status
		}
		if r.Msg != wantMsg[i] || r.Attempt != i+1 || status != wantStatus[i] || r.Component != "test" ||
			(wantStatus[i] == 0) != (r.Status == nil) {
			t.Errorf("record %d: %+v (status %d), want %q for attempt %d with status %d", i, r, status, wantMsg[i], i+1, wantStatus[i])
		}
	}
}

// Observing statuses costs one small allocation an attempt.
func TestAttemptStatusAllocations(t *testing.T) {
	resp := &http.Response{StatusCode: 200, Body: http.NoBody}
	base := roundTripperFunc(func(*http.Request) (*http.Response, error) { return resp, nil })
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	measure := func(rt http.RoundTripper) float64 {
		return testing.AllocsPerRun(200, func() {
			if _, err := rt.RoundTrip(req); err != nil {
				t.Fatal(err)
			}
		})
	}
	plain := measure(NewTransport(base))
	observed := measure(NewTransport(base, WithInstrumenter(nopInstrumenter{})))
	if observed > plain+1 {
		t.Errorf("a request with an Instrumenter allocates %v times, without %v: want at most one more", observed, plain)
	}
}

type nopInstrumenter struct{}

func (nopInstrumenter) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context {
	return ctx
}
func (nopInstrumenter) AfterAttempt(context.Context, backoff.State) {}

// scriptedBase answers each request with the next of statuses, where 0
// stands for a connection reset.
func scriptedBase(statuses []int) http.RoundTripper {
	n := 0
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		code := statuses[n]
		n++
		if code == 0 {
			return nil, syscall.ECONNRESET
		}
		return &http.Response{StatusCode: code, Body: http.NoBody, Header: http.Header{}, Request: req}, nil
	})
}
