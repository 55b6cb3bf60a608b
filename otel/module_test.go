package otelbackoff_test

import (
	"os"
	"strings"
	"testing"
)

// The core's users must never download an observability library: the
// core's go.mod requires none, and this module is never required by it.
func TestTheCoreRequiresNoObservabilityLibrary(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"go.opentelemetry.io", "github.com/prometheus", "github.com/herdsafe/backoff/otel", "github.com/herdsafe/backoff/prometheus"} {
		if strings.Contains(string(mod), banned) {
			t.Errorf("the core's go.mod names %s", banned)
		}
	}
}
