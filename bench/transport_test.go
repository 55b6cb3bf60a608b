package bench

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go/failsafehttp"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/httpretry"
)

// transportRow is one way to send a request: the bare base transport, or a
// retrying layer over it configured as its documentation recommends, with
// exponential backoff and 5 attempts.
type transportRow struct {
	name string
	// client returns an *http.Client whose requests go through base.
	client func(base *http.Transport) *http.Client
}

var transportRows = []transportRow{
	{"bare", func(base *http.Transport) *http.Client {
		return &http.Client{Transport: base}
	}},
	{"herdsafe", func(base *http.Transport) *http.Client {
		return &http.Client{Transport: httpretry.NewTransport(base, httpretry.WithMaxTries(maxAttempts))}
	}},
	// The same Transport, with a bulkhead around each request and a
	// breaker around each attempt.
	{"herdsafe-guarded", func(base *http.Transport) *http.Client {
		return &http.Client{Transport: httpretry.NewTransport(base,
			httpretry.WithMaxTries(maxAttempts),
			httpretry.WithRequestGuards(bulkhead.New(100)),
			httpretry.WithAttemptGuards(breaker.New()),
		)}
	}},
	{"retryablehttp", func(base *http.Transport) *http.Client {
		rc := retryablehttp.NewClient()
		rc.HTTPClient = &http.Client{Transport: base}
		rc.RetryMax = maxAttempts - 1
		rc.Logger = nil // the default logs every request
		return rc.StandardClient()
	}},
	{"failsafe", func(base *http.Transport) *http.Client {
		policy := failsafehttp.NewRetryPolicyBuilder().
			WithBackoff(time.Second, 30*time.Second).
			WithMaxAttempts(maxAttempts).
			Build()
		return &http.Client{Transport: failsafehttp.NewRoundTripper(base, policy)}
	}},
}

// newServer starts a loopback server that answers every request with a
// short body, and counts the requests.
func newServer(tb testing.TB) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		_, _ = io.WriteString(w, "ok")
	}))
	tb.Cleanup(srv.Close)
	return srv, &n
}

// get sends one GET and reads the whole response.
func get(c *http.Client, url string) error {
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	if cerr := resp.Body.Close(); err == nil {
		err = cerr
	}
	if err == nil && resp.StatusCode != http.StatusOK {
		err = &statusError{resp.StatusCode}
	}
	return err
}

type statusError struct{ code int }

func (e *statusError) Error() string { return "status " + http.StatusText(e.code) }

// BenchmarkTransport is the overhead of each retrying transport on a
// successful GET to a loopback server, beside the bare base transport. Every
// row gets a base transport of its own, with keep-alive connections.
func BenchmarkTransport(b *testing.B) {
	srv, _ := newServer(b)
	for _, r := range transportRows {
		b.Run(r.name, func(b *testing.B) {
			base := http.DefaultTransport.(*http.Transport).Clone()
			defer base.CloseIdleConnections()
			c := r.client(base)
			if err := get(c, srv.URL); err != nil { // open the connection
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := get(c, srv.URL); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
