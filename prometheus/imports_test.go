package prombackoff_test

import (
	"testing"

	"github.com/herdsafe/backoff/internal/testkit/telemetrytest"
)

// The package names no guard: it observes every guard, and a guard of
// the user's, through guard.Describer, so that a guard added later needs
// no change here.
func TestNamesNoGuard(t *testing.T) {
	telemetrytest.NamesNoGuard(t)
}
