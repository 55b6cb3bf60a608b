package backoff_test

import (
	"os"
	"strings"
	"testing"
)

// The core's users must never download an observability library or a
// Redis client: the core's go.mod requires none, and none of the modules
// beside it (otel, prometheus, redisguard) is required by it.
func TestTheCoreRequiresNoIntegration(t *testing.T) {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{
		"go.opentelemetry.io", "github.com/prometheus", "github.com/redis",
		"github.com/herdsafe/backoff/otel", "github.com/herdsafe/backoff/prometheus", "github.com/herdsafe/backoff/redisguard",
	} {
		if strings.Contains(string(mod), banned) {
			t.Errorf("the core's go.mod names %s", banned)
		}
	}
}
