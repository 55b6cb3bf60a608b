package herd_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/herdsafe/backoff/herd"
)

// A setting given twice in one expression is an error, as a fleet size
// given twice is on the command line, not the last one silently.
func TestSettingGivenTwice(t *testing.T) {
	t.Parallel()
	for _, expr := range []string{"breaker(open=5s,open=6s)", "token-bucket+breaker(failures=3,failures=3)"} {
		_, err := herd.ParseStack(expr)
		if !errors.Is(err, herd.ErrInvalidConfig) || !strings.Contains(err.Error(), "breaker: ") || !strings.Contains(err.Error(), " is given twice") {
			t.Errorf("ParseStack(%q): %v, want the setting given twice", expr, err)
		}
	}
	_, err := herd.ParseBackOff("full(base=1ms,base=2ms)", herd.DefaultBase, herd.DefaultCap)
	if !errors.Is(err, herd.ErrInvalidConfig) || !strings.Contains(err.Error(), "full: base is given twice") {
		t.Errorf("ParseBackOff: %v, want base given twice", err)
	}
}

// An error quotes the input it refuses, cut short: not pages of it.
func TestErrorsClipTheirInput(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 5000)
	for _, f := range []func() error{
		func() error { _, err := herd.ParseStack(long); return err },
		func() error { _, err := herd.ParseStack("breaker(open=" + long + ")"); return err },
		func() error { _, err := herd.ParseStack("breaker(" + long + "=1)"); return err },
		func() error { _, err := herd.ParseStack("breaker(" + long); return err },
		func() error { _, err := herd.ParseBackOff(long, time.Millisecond, time.Second); return err },
		func() error {
			_, err := herd.ParseBackOff("full(cap="+long+")", time.Millisecond, time.Second)
			return err
		},
	} {
		err := f()
		if err == nil || len(err.Error()) > 400 || !strings.Contains(err.Error(), "…") || !strings.Contains(err.Error(), "éé") {
			t.Errorf("%d bytes: %.200q…; want the input cut short, with …", len(err.Error()), err)
		}
	}
}

// Tries and Clients have bounds a run can be held to: more attempts or
// clients would take hours or gigabytes.
func TestTriesAndClientsBounds(t *testing.T) {
	t.Parallel()
	cfg := herd.Config{Scenario: herd.Outage, Clients: 1, NewBackOff: herd.Immediate(), Tries: herd.MaxTries}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("Tries = MaxTries: %v", err)
	}
	cfg.Tries++
	if err := cfg.Validate(); !errors.Is(err, herd.ErrInvalidConfig) || !strings.Contains(err.Error(), "Tries is 11; it must lie in [1, 10]") {
		t.Errorf("Tries = MaxTries+1: %v", err)
	}
	if herd.MaxClients > 100_000 {
		t.Errorf("MaxClients is %d: each client's retry loop holds about 7 KB", herd.MaxClients)
	}
}
