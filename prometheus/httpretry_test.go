package prombackoff_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/httpretry"
)

// The attempt guards of an httpretry.Transport refuse its requests under
// their own cause, and the instrumenter of its retry stage counts them so: an open circuit, an exhausted budget and a full
// bulkhead, each against a loopback server that is down.
func TestHTTPRetryRefusalsAreCountedByCause(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	base := &http.Transport{}
	defer base.CloseIdleConnections()

	full := bulkhead.New(1)
	if _, err := full.Allow(context.Background(), guard.Call{Attempt: 1}); err != nil { // its one slot taken
		t.Fatal(err)
	}
	defer full.Record(guard.Permit{}, guard.Outcome{})

	in, reg := newInstrumenter(t)
	for _, c := range []struct {
		name  string
		guard guard.Guard
		want  error
	}{
		{"circuit", breaker.New(breaker.WithConsecutiveFailures(1)), breaker.ErrCircuitOpen},
		{"budget", budget.NewTokenBucket(budget.WithMaxTokens(2)), budget.ErrBudgetExhausted},
		{"bulkhead", full, bulkhead.ErrBulkheadFull},
	} {
		client := &http.Client{Transport: httpretry.NewTransport(base,
			httpretry.WithBackOff(&backoff.ZeroBackOff{}),
			httpretry.WithInstrumenter(in.Named(c.name)),
			httpretry.WithAttemptGuards(c.guard),
		)}
		resp, err := client.Get(srv.URL)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		var e *backoff.Error
		if !errors.As(err, &e) || !errors.Is(e.Cause, c.want) || !errors.Is(e.Cause, backoff.ErrRefused) {
			t.Errorf("%s: got %v; want a refusal matching %v", c.name, err, c.want)
		}
	}
	expect(t, reg, giveUpsHead+`backoff_give_ups_total{cause="budget_exhausted",name="budget"} 1
backoff_give_ups_total{cause="bulkhead_full",name="bulkhead"} 1
backoff_give_ups_total{cause="circuit_open",name="circuit"} 1
`, "backoff_give_ups_total")
}
