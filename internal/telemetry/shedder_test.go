package telemetry

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

// A Shedder's refusals before its guard are observed: the retries it
// refused under pressure and the requests whose caller would not wait.
func TestShedderObserved(t *testing.T) {
	b := bulkhead.New(1)
	s := httpshed.New(b)
	o := Shedder(s)
	want(t, "new", read(t, o), map[string]float64{"shedder.retries_refused": 0, "shedder.late_refused": 0, "shedder.queue_time": 0})
	p, err := b.Allow(context.Background(), guard.Call{Attempt: 1}) // full: pressure 1
	if err != nil {
		t.Fatal(err)
	}
	defer b.Record(p, guard.Outcome{})
	h := s.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for _, hdr := range []http.Header{{hop.AttemptHeader: {"2"}}, {hop.TimeoutHeader: {"0"}}, {hop.AttemptHeader: {"3"}}} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header = hdr
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	want(t, "refusing", read(t, o), map[string]float64{"shedder.retries_refused": 2, "shedder.late_refused": 1, "shedder.queue_time": 0})
	if got := Shedder((*httpshed.Shedder)(nil)); got.Read != nil {
		t.Error("a nil *Shedder is observed")
	}
}
