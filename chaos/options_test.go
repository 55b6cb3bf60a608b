package chaos

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
	"github.com/herdsafe/backoff/policy"
)

var errInjected = errors.New("synthetic failure")

func TestConfigValidate(t *testing.T) {
	valid := []struct {
		name string
		cfg  Config
	}{
		{"zero", Config{}},
		{"everything", Config{ErrorProbability: 1, InjectedError: errInjected, LatencyProbability: 1, LatencyDuration: time.Second}},
		{"zero_delay", Config{LatencyProbability: 0.5}},
		{"error_without_probability", Config{InjectedError: errInjected}},
	}
	for _, c := range valid {
		if err := c.cfg.Validate(); err != nil {
			t.Errorf("%s: Validate() = %v, want nil", c.name, err)
		}
	}
	invalid := []struct {
		name  string
		cfg   Config
		field string
	}{
		{"error_negative", Config{ErrorProbability: -0.1, InjectedError: errInjected}, "ErrorProbability"},
		{"error_above_one", Config{ErrorProbability: 1.1, InjectedError: errInjected}, "ErrorProbability"},
		{"error_nan", Config{ErrorProbability: math.NaN(), InjectedError: errInjected}, "ErrorProbability"},
		{"error_inf", Config{ErrorProbability: math.Inf(1), InjectedError: errInjected}, "ErrorProbability"},
		{"latency_negative", Config{LatencyProbability: -1}, "LatencyProbability"},
		{"latency_above_one", Config{LatencyProbability: 2}, "LatencyProbability"},
		{"latency_nan", Config{LatencyProbability: math.NaN()}, "LatencyProbability"},
		{"duration_negative", Config{LatencyProbability: 0.5, LatencyDuration: -time.Nanosecond}, "LatencyDuration"},
		{"duration_negative_unused", Config{LatencyDuration: -time.Second}, "LatencyDuration"},
		{"nil_injected_error", Config{ErrorProbability: 0.01}, "InjectedError"},
		{"typed_nil_injected_error", Config{ErrorProbability: 1, InjectedError: (*backoff.Error)(nil)}, "InjectedError"},
		{"typed_nil_injected_error_unused", Config{InjectedError: (*backoff.Error)(nil)}, "InjectedError"},
		{"typed_nil_clock", Config{Clock: (*clock.Mock)(nil)}, "Clock"},
	}
	for _, c := range invalid {
		err := c.cfg.Validate()
		if !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: Validate() = %v, want ErrInvalidConfiguration naming %s", c.name, err, c.field)
		}
	}
}

// An Injector with an invalid Config never admits a call: Allow refuses
// with the Config's error, and Run with a refusal of it (a Policy with it
// fails before running anything: see policy_test.go).
func TestInvalidInjectorRefuses(t *testing.T) {
	in := New(Config{ErrorProbability: 0.5}) // no InjectedError
	// Allow returns the Config's error itself: a refusal, not a Failure.
	guardtest.Refuses(t, in, guardtest.Invalid(t, in, "InjectedError"))
	if got := in.Stats(); got != (Stats{Calls: 3}) {
		t.Errorf("Stats() = %+v, want 3 calls and nothing injected", got)
	}
}

// A zero or nil Injector, which New did not make, refuses as an invalid
// one does, rather than admitting every call; and Allow refuses a nil
// context instead of panicking on it.
func TestZeroInjectorAndNilContextRefused(t *testing.T) {
	zero := &Injector{}
	guardtest.Refuses(t, zero, guardtest.Invalid(t, zero, "zero or nil Injector"))
	var nilInjector *Injector
	if err := nilInjector.Validate(); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("nil *Injector: Validate() = %v, want ErrInvalidConfiguration", err)
	}
	slow := New(Config{LatencyProbability: 1, LatencyDuration: time.Second})
	//lint:ignore SA1012 a nil context is what is being tested
	if _, err := slow.Allow(nil, guard.Call{Attempt: 1}); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("Allow(nil): %v, want ErrInvalidConfiguration", err)
	}
}

// A typed-nil InjectedError is refused before any call, so that nothing
// calls its methods: Allow, Run and a Policy report the Config's
// error, which prints and matches without panicking.
func TestTypedNilInjectedErrorRefused(t *testing.T) {
	in := New(Config{ErrorProbability: 1, InjectedError: (*backoff.Error)(nil)})
	want := in.Validate()
	if !errors.Is(want, backoff.ErrInvalidConfiguration) || !strings.Contains(want.Error(), "InjectedError is a nil *backoff.Error") {
		t.Fatalf("Validate() = %v, want ErrInvalidConfiguration naming InjectedError", want)
	}
	if _, err := in.Allow(context.Background(), guard.Call{Attempt: 1}); err != want {
		t.Errorf("Allow: %v, want the Config's error", err)
	}
	called := false
	if err := in.Run(context.Background(), func(context.Context) error { called = true; return nil }); !errors.Is(err, want) || called {
		t.Errorf("Run: %v (fn called: %v), want the Config's error and fn not called", err, called)
	}
	err := policy.New(policy.Guard(in)).DoErr(context.Background(), func(context.Context) error { called = true; return nil })
	if !errors.Is(err, backoff.ErrInvalidConfiguration) || errors.Is(err, errInjected) || called || err.Error() == "" {
		t.Errorf("through a Policy: %v (fn called: %v), want ErrInvalidConfiguration", err, called)
	}
}
