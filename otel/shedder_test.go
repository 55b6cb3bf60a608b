package otelbackoff_test

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

// ObserveShedder reports the requests an httpshed Shedder refused before
// its guard.
func TestObserveShedder(t *testing.T) {
	h := newHarness(t)
	b := bulkhead.New(1)
	s := httpshed.New(b)
	if _, err := h.in.ObserveShedder("api", s); err != nil {
		t.Fatal(err)
	}
	p, _ := b.Allow(context.Background(), guard.Call{Attempt: 1})
	defer b.Record(p, guard.Outcome{})
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set(hop.TimeoutHeader, "0")
	s.Handler(http.NotFoundHandler()).ServeHTTP(httptest.NewRecorder(), r)
	got := h.points(t, "backoff.shedder.late_refused")
	if len(got) != 1 {
		t.Fatalf("backoff.shedder.late_refused: %v; want one point", got)
	}
	for k, v := range got {
		if v != 1 {
			t.Errorf("backoff.shedder.late_refused{%s} = %v, want 1", k, v)
		}
	}
	if _, err := h.in.ObserveShedder("b", nil); err == nil {
		t.Error("a nil Shedder was observed")
	}
}
