package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// newTestServer is a server that is not listening, for calling ServeHTTP
// and trickle directly.
func newTestServer(m mix) *server {
	return &server{mix: m, start: time.Now(), body: []byte(strings.Repeat("x", m.body)), quit: make(chan struct{})}
}

func TestServeHTTPAnswers(t *testing.T) {
	tests := []struct {
		name       string
		m          mix
		status     int
		retryAfter bool
		kind       kind
	}{
		{"200", mix{body: 16, slowChunks: 1, outageSlot: time.Second}, 200, false, answerOK},
		{"503", mix{unavailable: 1, body: 16, slowChunks: 1, outageSlot: time.Second}, 503, false, answerUnavailable},
		{"503 with Retry-After", mix{retryAfter: 1, retryAfterMax: 2, body: 16, slowChunks: 1, outageSlot: time.Second}, 503, true, answerRetryAfter},
		{"outage", mix{outage: 1, body: 16, slowChunks: 1, outageSlot: time.Second}, 503, false, answerOutage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(tt.m)
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
			if w.Code != tt.status || w.Body.Len() != 16 {
				t.Errorf("status %d with %d bytes, want %d with 16", w.Code, w.Body.Len(), tt.status)
			}
			if got := w.Header().Get("Retry-After"); (got != "") != tt.retryAfter || (got != "" && got != "0" && got != "1" && got != "2") {
				t.Errorf("Retry-After %q", got)
			}
			st := s.stats()
			if st.Seen != 1 || st.Kinds[tt.kind] != 1 {
				t.Errorf("stats %+v: want one request of kind %v", st, tt.kind)
			}
		})
	}
}

func TestTrickle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(mix{body: 8, slowChunks: 4})
		w := httptest.NewRecorder()
		start := time.Now()
		s.trickle(w, httptest.NewRequest(http.MethodGet, "/", nil), 400*time.Millisecond)
		if w.Body.String() != "xxxxxxxx" || !w.Flushed {
			t.Errorf("body %q, flushed %v: want the whole body, flushed", w.Body.String(), w.Flushed)
		}
		// Four pieces, 100 ms apart: the last one 300 ms after the first.
		if took := time.Since(start); took != 300*time.Millisecond {
			t.Errorf("the trickle took %v, want 300ms", took)
		}
	})
}

func TestTrickleStops(t *testing.T) {
	for _, how := range []string{"server closes", "client goes away"} {
		t.Run(how, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newTestServer(mix{body: 8, slowChunks: 4})
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				r := httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx)
				w := httptest.NewRecorder()
				done := make(chan struct{})
				go func() {
					defer close(done)
					s.trickle(w, r, time.Hour)
				}()
				synctest.Wait() // the first piece is out, the trickle waits
				if how == "server closes" {
					close(s.quit)
				} else {
					cancel()
				}
				<-done
				if w.Body.String() != "xx" {
					t.Errorf("body %q: want the first piece alone", w.Body.String())
				}
			})
		})
	}
}

// TestResetConn sends one request to a server that resets every
// connection: the client gets an error, not a response.
func TestResetConn(t *testing.T) {
	s, err := startServer(mix{reset: 1, body: 16, slowChunks: 1, outageSlot: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(s.url)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("got %s from a server that resets every connection", resp.Status)
	}
	if st := s.stats(); st.Kinds[answerReset] != 1 || st.NoReset != 0 {
		t.Errorf("stats %+v: want one reset", st)
	}
}
