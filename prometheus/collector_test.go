package prombackoff_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/throttle"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestObserveRejectsInvalidArguments(t *testing.T) {
	in, _ := newInstrumenter(t)
	cases := []struct {
		name    string
		observe func() (func() bool, error)
		says    string
	}{
		{"nil_breaker", func() (func() bool, error) { return in.ObserveBreaker("b", nil) }, "nil guard"},
		{"nil_bulkhead", func() (func() bool, error) { return in.ObserveBulkhead("b", nil) }, "nil guard"},
		{"nil_priority_bulkhead", func() (func() bool, error) { return in.ObservePriorityBulkhead("b", nil) }, "nil guard"},
		{"nil_budget", func() (func() bool, error) { return in.ObserveBudget("b", nil) }, "nil guard"},
		{"nil_throttle", func() (func() bool, error) { return in.ObserveThrottle("b", nil) }, "nil guard"},
		{"nil_limiter", func() (func() bool, error) { return in.ObserveLimiter("b", nil) }, "nil guard"},
		{"empty_name", func() (func() bool, error) { return in.ObserveBreaker("", breaker.New()) }, "empty name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			unregister, err := c.observe()
			if unregister != nil || !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("got %v; want an ErrInvalidConfiguration saying %q", err, c.says)
			}
		})
	}
}

// The registry refuses a second guard of a kind under one name, until the
// first is unregistered.
func TestObserveNamesAreUnique(t *testing.T) {
	in, reg := newInstrumenter(t)
	unregister, err := in.ObserveBreaker("payments", breaker.New())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.ObserveBreaker("payments", breaker.New()); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("a second breaker named payments: %v, want ErrInvalidConfiguration", err)
	}
	if _, err := in.ObserveBreaker("ledger", breaker.New()); err != nil {
		t.Errorf("a breaker named ledger: %v", err)
	}
	for i, observe := range []func() (func() bool, error){
		func() (func() bool, error) { return in.ObserveBulkhead("payments", bulkhead.New(1)) },
		func() (func() bool, error) { return in.ObserveBudget("payments", budget.NewTokenBucket()) },
		func() (func() bool, error) { return in.ObserveThrottle("payments", throttle.New()) },
		func() (func() bool, error) { return in.ObserveLimiter("payments", limiter.New()) },
	} {
		if _, err := observe(); err != nil {
			t.Errorf("guard %d of another kind named payments: %v", i, err)
		}
	}
	if !unregister() {
		t.Fatal("unregister reported that nothing was registered")
	}
	if n, _ := testutil.GatherAndCount(reg, "backoff_breaker_state"); n != 5 {
		t.Errorf("after unregister, %d series of backoff_breaker_state, want the 5 of ledger", n)
	}
	if _, err := in.ObserveBreaker("payments", breaker.New()); err != nil {
		t.Errorf("after unregister the name is still taken: %v", err)
	}
}
