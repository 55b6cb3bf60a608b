package prombackoff_test

import (
	"context"
	"errors"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/budget"
	prombackoff "github.com/herdsafe/backoff/prometheus"
	"github.com/prometheus/client_golang/prometheus"
)

// Label values that are not valid UTF-8 never make a call panic: a name
// given to Named, and an error type a WithErrorType function returns, are
// counted with their invalid bytes replaced; a name given to an Observe
// method is refused, naming the setting.
func TestInvalidUTF8Labels(t *testing.T) {
	in, reg := newInstrumenter(t, prombackoff.WithErrorType(func(error) string { return "type\xff" }))
	_, err := backoff.Do(context.Background(), failing(1, errTransient),
		backoff.WithInstrumenter(in.Named("bad\xff")), backoff.WithBackOff(&backoff.ZeroBackOff{}))
	if err != nil {
		t.Fatal(err)
	}
	expect(t, reg, retriesHead+"backoff_retries_total{error_type=\"type\uFFFD\",name=\"bad\uFFFD\",retry_num=\"1\"} 1\n", "backoff_retries_total")
	if _, err := in.Observe("bad\xff", budget.NewTokenBucket()); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("Observe of a budget with an invalid UTF-8 name = %v, want ErrInvalidConfiguration", err)
	}
}

// A typed nil Registerer is refused as a nil one is; a nil *Registration,
// what an Observe method returns with its error, unregisters nothing.
func TestTypedNils(t *testing.T) {
	if _, err := prombackoff.New((*prometheus.Registry)(nil)); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("New((*prometheus.Registry)(nil)) = %v, want ErrInvalidConfiguration", err)
	}
	var r *prombackoff.Registration
	if err := r.Unregister(); err != nil {
		t.Errorf("(*Registration)(nil).Unregister() = %v, want nil", err)
	}
}
