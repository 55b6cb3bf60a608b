package httpretry

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// Intermediate responses are drained and closed, so their connection is
// reused for the retry and for later requests.
func TestConnectionReuseAcrossRetries(t *testing.T) {
	page := strings.Repeat("x", 3<<10) // under the 4 KiB drained
	srv := newServer(t, func(w http.ResponseWriter, _ *http.Request, n int) {
		if n%3 != 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		io.WriteString(w, page)
	})
	rt := NewTransport(srv.base, noWait)
	const requests = 20
	for range requests {
		resp, err := get(t, rt, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		readBody(t, resp)
	}
	if hits := srv.hits.Load(); hits != 3*requests {
		t.Fatalf("%d requests, want %d", hits, 3*requests)
	}
	if conns := srv.conns.Load(); conns != 1 {
		t.Errorf("%d requests opened %d connections, want 1", 3*requests, conns)
	}
}

// An intermediate body longer than the drain limit is not read to its end:
// the retry does not wait for it.
func TestLongIntermediateBodyIsNotReadWhole(t *testing.T) {
	const size = 256 << 20
	written := make(chan int64, 1)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n > 1 {
			io.WriteString(w, "ok")
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		sent, _ := io.Copy(w, &generator{remaining: size})
		written <- sent
	})
	resp, err := get(t, NewTransport(srv.base, noWait), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if body := readBody(t, resp); body != "ok" {
		t.Errorf("body %q, want ok", body)
	}
	if sent := <-written; sent >= size {
		t.Errorf("the server wrote all %d bytes of the intermediate body", sent)
	}
}
