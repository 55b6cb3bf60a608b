package prombackoff_test

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
	in, reg := newInstrumenter(t)
	g := &scriptedShared{local: true, fallbacks: 1} // Redis went away
	if _, err := in.ObserveShared("fleet-budget", g); err != nil {
		t.Fatal(err)
	}
	figures := func(local, fallbacks, recoveries string) string {
		return `# HELP backoff_shared_guard_local 1 while the guard decides on its local fallback, 0 while on the shared state.
# TYPE backoff_shared_guard_local gauge
backoff_shared_guard_local{name="fleet-budget"} ` + local + `
# HELP backoff_shared_guard_fallbacks_total Turns of the guard from the shared state to its local fallback.
# TYPE backoff_shared_guard_fallbacks_total counter
backoff_shared_guard_fallbacks_total{name="fleet-budget"} ` + fallbacks + `
# HELP backoff_shared_guard_recoveries_total Returns of the guard from its local fallback to the shared state.
# TYPE backoff_shared_guard_recoveries_total counter
backoff_shared_guard_recoveries_total{name="fleet-budget"} ` + recoveries + `
`
	}
	names := []string{"backoff_shared_guard_local", "backoff_shared_guard_fallbacks_total", "backoff_shared_guard_recoveries_total"}
	expect(t, reg, figures("1", "1", "0"), names...)
	g.local, g.recoveries = false, 1 // and came back
	expect(t, reg, figures("0", "1", "1"), names...)

	if _, err := in.ObserveShared("fleet-budget", g); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("the same name twice: %v, want ErrInvalidConfiguration", err)
	}
	if _, err := in.ObserveShared("other", nil); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("a nil guard: %v, want ErrInvalidConfiguration", err)
	}
}
