package httpretry

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/bulkhead"
)

// BenchmarkTransportOverhead measures a successful GET to a loopback server
// through the bare base transport and through a Transport wrapping it.
// Compare the two in the same run: the ratio is the Transport's overhead.
func BenchmarkTransportOverhead(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	for _, bc := range []struct {
		name string
		rt   http.RoundTripper
	}{
		{"base", base},
		{"httpretry", NewTransport(base)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				resp, err := bc.rt.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

// BenchmarkTransportOverheadNoNetwork isolates the Transport's own cost:
// the base answers at once, without a network.
func BenchmarkTransportOverheadNoNetwork(b *testing.B) {
	resp := &http.Response{StatusCode: 200, Body: http.NoBody}
	stub := roundTripperFunc(func(*http.Request) (*http.Response, error) { return resp, nil })
	for _, bc := range []struct {
		name string
		rt   http.RoundTripper
	}{
		{"base", stub},
		{"httpretry", NewTransport(stub)},
		{"httpretry_instrumented", NewTransport(stub, WithInstrumenter(nopInstrumenter{}))},
		{"httpretry_guarded", NewTransport(stub, WithRequestGuards(bulkhead.New(100)), WithAttemptGuards(breaker.New()))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.rt.RoundTrip(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
