package otelbackoff_test

import (
	"errors"
	"testing"

	"github.com/herdsafe/backoff"
)

// scriptedShared is a SharedGuard whose figures a test sets.
type scriptedShared struct {
	local                 bool
	fallbacks, recoveries uint64
}

func (s *scriptedShared) Fallback() (bool, uint64, uint64) { return s.local, s.fallbacks, s.recoveries }

func TestObserveShared(t *testing.T) {
	h := newHarness(t)
	g := &scriptedShared{}
	if _, err := h.in.ObserveShared("fleet-budget", g); err != nil {
		t.Fatal(err)
	}
	equalPoints(t, "local, shared", h.points(t, "backoff.shared_guard.local"), map[string]float64{"guard.name=fleet-budget": 0})
	g.local, g.fallbacks = true, 1 // Redis went away
	equalPoints(t, "local, fallen back", h.points(t, "backoff.shared_guard.local"), map[string]float64{"guard.name=fleet-budget": 1})
	equalPoints(t, "fallbacks", h.points(t, "backoff.shared_guard.fallbacks"), map[string]float64{"guard.name=fleet-budget": 1})
	g.local, g.fallbacks, g.recoveries = false, 2, 2 // and came back, twice
	equalPoints(t, "local, recovered", h.points(t, "backoff.shared_guard.local"), map[string]float64{"guard.name=fleet-budget": 0})
	equalPoints(t, "recoveries", h.points(t, "backoff.shared_guard.recoveries"), map[string]float64{"guard.name=fleet-budget": 2})

	if _, err := h.in.ObserveShared("fleet-budget", g); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("the same name twice: %v, want ErrInvalidConfiguration", err)
	}
	if _, err := h.in.ObserveShared("other", nil); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("a nil guard: %v, want ErrInvalidConfiguration", err)
	}
}
