package otelbackoff_test

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
	"go.opentelemetry.io/otel/metric"
)

func TestObserveRejectsInvalidArguments(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		name    string
		observe func() (metric.Registration, error)
		says    string
	}{
		{"nil_breaker", func() (metric.Registration, error) { return h.in.ObserveBreaker("b", nil) }, "nil guard"},
		{"nil_bulkhead", func() (metric.Registration, error) { return h.in.ObserveBulkhead("b", nil) }, "nil guard"},
		{"nil_priority_bulkhead", func() (metric.Registration, error) { return h.in.ObservePriorityBulkhead("b", nil) }, "nil guard"},
		{"nil_budget", func() (metric.Registration, error) { return h.in.ObserveBudget("b", nil) }, "nil guard"},
		{"nil_throttle", func() (metric.Registration, error) { return h.in.ObserveThrottle("b", nil) }, "nil guard"},
		{"nil_limiter", func() (metric.Registration, error) { return h.in.ObserveLimiter("b", nil) }, "nil guard"},
		{"empty_name", func() (metric.Registration, error) { return h.in.ObserveBreaker("", breaker.New()) }, "empty name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reg, err := c.observe()
			if reg != nil || !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("got %v, %v; want an ErrInvalidConfiguration saying %q", reg, err, c.says)
			}
		})
	}
}

// A name is taken per kind of guard until its registration is dropped.
func TestObserveNamesAreUnique(t *testing.T) {
	h := newHarness(t)
	reg, err := h.in.ObserveBreaker("payments", breaker.New())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.in.ObserveBreaker("payments", breaker.New()); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("a second breaker named payments: %v, want ErrInvalidConfiguration", err)
	}
	others := []func() (metric.Registration, error){
		func() (metric.Registration, error) { return h.in.ObserveBulkhead("payments", bulkhead.New(1)) },
		func() (metric.Registration, error) {
			return h.in.ObservePriorityBulkhead("payments", bulkhead.NewPriority(1))
		},
		func() (metric.Registration, error) { return h.in.ObserveBudget("payments", budget.NewTokenBucket()) },
		func() (metric.Registration, error) { return h.in.ObserveThrottle("payments", throttle.New()) },
		func() (metric.Registration, error) { return h.in.ObserveLimiter("payments", limiter.New()) },
	}
	for i, observe := range others {
		if _, err := observe(); err != nil {
			t.Errorf("guard %d of another kind named payments: %v", i, err)
		}
	}
	if err := reg.Unregister(); err != nil {
		t.Fatal(err)
	}
	if got := h.points(t, "backoff.breaker.state"); len(got) != 0 {
		t.Errorf("after Unregister the breaker is still observed: %v", got)
	}
	if _, err := h.in.ObserveBreaker("payments", breaker.New()); err != nil {
		t.Errorf("after Unregister the name is still taken: %v", err)
	}
}
