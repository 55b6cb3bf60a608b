package ratelimit_test

import (
	"os"
	"strings"
	"testing"
)

// The core's users must never download golang.org/x/time for this guard:
// the core's go.mod requires neither it nor this module.
func TestTheCoreDoesNotRequireXTime(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"golang.org/x/time", "github.com/herdsafe/backoff/ratelimit"} {
		if strings.Contains(string(mod), banned) {
			t.Errorf("the core's go.mod names %s", banned)
		}
	}
}
