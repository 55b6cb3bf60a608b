package httpshed

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/herdsafe/backoff/bulkhead"
)

// BenchmarkHandler measures an admitted request through the middleware,
// beside the bare handler, without a network: the ratio is its cost.
func BenchmarkHandler(b *testing.B) {
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	for _, bc := range []struct {
		name string
		h    http.Handler
	}{
		{"bare", h},
		{"shed", New(bulkhead.New(100)).Handler(h)},
		{"shed_without_tier", New(bulkhead.New(100), WithTier(false)).Handler(h)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			w := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				w.Body.Reset()
				bc.h.ServeHTTP(w, req)
			}
		})
	}
}
