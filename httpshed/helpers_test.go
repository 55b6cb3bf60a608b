package httpshed

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// waitFor waits until cond holds, for a goroutine the test started. It
// gives up after a few seconds, which a passing test never reaches.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for a goroutine of the test")
		}
	}
}

// serve starts a loopback server of h, and a client transport of its own,
// both closed when the test ends.
func serve(t *testing.T, h http.Handler) (*httptest.Server, *http.Transport) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.Start()
	base := &http.Transport{}
	t.Cleanup(func() {
		base.CloseIdleConnections()
		srv.Close()
	})
	return srv, base
}

// get sends a GET through rt and returns the response with its body read.
func get(t *testing.T, rt http.RoundTripper, url string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// fetch is get for a goroutine of the test: it reports what went wrong
// instead of failing the test.
func fetch(rt http.RoundTripper, url string) (string, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// holder is a handler that answers "served", and holds the first request
// it is given until release is closed: in is closed once it holds it.
type holder struct {
	in, release chan struct{}
	calls       atomic.Int64 // the requests it was given
}

func newHolder() *holder {
	return &holder{in: make(chan struct{}), release: make(chan struct{})}
}

func (h *holder) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	if h.calls.Add(1) == 1 {
		close(h.in)
		<-h.release
	}
	io.WriteString(w, "served")
}
