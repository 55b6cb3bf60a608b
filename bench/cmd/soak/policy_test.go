package main

import (
	"context"
	"strings"
	"testing"
)

// TestPolicyRejectsBadGuards: a guard setting the flags let through is
// reported by the Policy before any call is made.
func TestPolicyRejectsBadGuards(t *testing.T) {
	cfg := smokeConfig(modePolicy)
	cfg.breakerRate = 2
	_, err := run(context.Background(), cfg, nil)
	if err == nil || !strings.Contains(err.Error(), "WithFailureRate") {
		t.Errorf("run with a breaker rate of 2: %v", err)
	}
}
