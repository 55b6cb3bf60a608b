package httpretry

import (
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// An HTTP/2 stream reset on a GET is retried as an HTTP/1 connection reset
// is: here a real HTTP/2 server aborts its first response, which resets
// the stream with INTERNAL_ERROR.
func TestHTTP2StreamResetIsRetried(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			panic(http.ErrAbortHandler) // the server resets the stream
		}
		io.WriteString(w, "ok "+r.Proto)
	}))
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	base := srv.Client().Transport.(*http.Transport)
	defer base.CloseIdleConnections()

	// Without retries the reset reaches the caller as an error naming it.
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	_, err := base.RoundTrip(req)
	if err == nil || !strings.Contains(err.Error(), "INTERNAL_ERROR") {
		t.Fatalf("the bare transport got %v, want a stream reset with INTERNAL_ERROR", err)
	}
	hits.Store(0)
	resp, err := get(t, NewTransport(base, noWait), srv.URL)
	if err != nil {
		t.Fatalf("through the Transport: %v", err)
	}
	if body := readBody(t, resp); body != "ok HTTP/2.0" || hits.Load() != 2 {
		t.Errorf("body %q after %d requests, want ok HTTP/2.0 after 2", body, hits.Load())
	}
}

// REFUSED_STREAM is retried whatever the method, since the server did no
// processing; the other resets only for requests safe to replay.
func TestHTTP2ResetCodes(t *testing.T) {
	cases := []struct {
		name, method, code string
		retried            bool
	}{
		{"refused POST", http.MethodPost, "REFUSED_STREAM", true},
		{"refused GET", http.MethodGet, "REFUSED_STREAM", true},
		{"internal GET", http.MethodGet, "INTERNAL_ERROR", true},
		{"internal POST", http.MethodPost, "INTERNAL_ERROR", false},
		{"calm down GET", http.MethodGet, "ENHANCE_YOUR_CALM", true},
		{"protocol error GET", http.MethodGet, "PROTOCOL_ERROR", false},
		{"HTTP/1.1 required GET", http.MethodGet, "HTTP_1_1_REQUIRED", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int32
			resetErr := errors.New("stream error: stream ID 3; " + c.code + "; received from peer")
			base := roundTripperFunc(func(r *http.Request) (*http.Response, error) {
				if calls.Add(1) == 1 {
					return nil, resetErr
				}
				return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
			})
			req, _ := http.NewRequest(c.method, "http://127.0.0.1/", strings.NewReader("payload"))
			resp, err := roundTrip(t, NewTransport(base, noWait), req)
			if c.retried {
				if err != nil || resp.StatusCode != 200 || calls.Load() != 2 {
					t.Errorf("got %v, %v after %d calls; want the retry's 200", resp, err, calls.Load())
				}
				return
			}
			if resp != nil || !errors.Is(err, resetErr) || calls.Load() != 1 {
				t.Errorf("got %v, %v after %d calls; want the reset, not retried", resp, err, calls.Load())
			}
		})
	}
	for code, want := range map[string]string{
		"stream error: stream ID 1; REFUSED_STREAM":                     "REFUSED_STREAM",
		"http2: stream error: stream ID 7; CANCEL; client disconnected": "CANCEL",
	} {
		if got, ok := streamReset(errors.New(code)); !ok || got != want {
			t.Errorf("streamReset(%q) = %q, %v; want %q", code, got, ok, want)
		}
	}
	if _, ok := streamReset(errors.New("connection reset by peer")); ok {
		t.Error("streamReset found a code in an error that has none")
	}
}
