package prombackoff_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/hop"
	"github.com/herdsafe/backoff/httpshed"
)

// ObserveShedder exposes the requests an httpshed Shedder refused before
// its guard.
func TestObserveShedder(t *testing.T) {
	in, reg := newInstrumenter(t)
	b := bulkhead.New(1)
	s := httpshed.New(b)
	if _, err := in.ObserveShedder("api", s); err != nil {
		t.Fatal(err)
	}
	p, _ := b.Allow(context.Background(), guard.Call{Attempt: 1})
	defer b.Record(p, guard.Outcome{})
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set(hop.AttemptHeader, "2")
	s.Handler(http.NotFoundHandler()).ServeHTTP(httptest.NewRecorder(), r)
	expect(t, reg, `# HELP backoff_shedder_retries_refused_total Retries the shedder refused under pressure, before its guard, saying do not retry.
# TYPE backoff_shedder_retries_refused_total counter
backoff_shedder_retries_refused_total{name="api"} 1
# HELP backoff_shedder_late_refused_total Requests the shedder refused because their caller would not wait for its queue.
# TYPE backoff_shedder_late_refused_total counter
backoff_shedder_late_refused_total{name="api"} 0
`, "backoff_shedder_retries_refused_total", "backoff_shedder_late_refused_total")
	if _, err := in.ObserveShedder("b", nil); err == nil {
		t.Error("a nil Shedder was observed")
	}
}
