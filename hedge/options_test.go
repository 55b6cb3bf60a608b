package hedge

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
)

// invalidGuard is a Guard whose Validate fails.
type invalidGuard struct{ refuser }

func (invalidGuard) Validate() error { return errors.New("capacity is 0") }

func TestInvalidConfiguration(t *testing.T) {
	cases := []struct {
		name string
		h    *Hedger
		op   Op[string]
		says string
	}{
		{"no_delay", New(), Idempotent(okFn), "WithDelay"},
		{"negative_delay", New(WithDelay(-time.Second)), Idempotent(okFn), "WithDelay"},
		{"zero_attempts", New(WithDelay(delay), WithMaxAttempts(0)), Idempotent(okFn), "WithMaxAttempts"},
		{"nil_clock", New(WithDelay(delay), WithClock(nil)), Idempotent(okFn), "WithClock"},
		{"nil_classifier", New(WithDelay(delay), WithRetryable(nil)), Idempotent(okFn), "WithRetryable"},
		{"nil_budget", New(WithDelay(delay), WithBudget(nil)), Idempotent(okFn), "WithBudget"},
		{"typed_nil_budget", New(WithDelay(delay), WithBudget((*spyGuard)(nil))), Idempotent(okFn), "WithBudget"},
		{"invalid_budget", New(WithDelay(delay), WithBudget(invalidGuard{})), Idempotent(okFn), "capacity is 0"},
		{"nil_discard", New(WithDelay(delay), WithDiscard[string](nil)), Idempotent(okFn), "WithDiscard"},
		{"discard_type", New(WithDelay(delay), WithDiscard(func(int) {})), Idempotent(okFn), "func(int)"},
		{"nil_option", New(WithDelay(delay), nil), Idempotent(okFn), "nil Option"},
		{"nil_hedger", nil, Idempotent(okFn), "nil *Hedger"},
		{"zero_hedger", &Hedger{}, Idempotent(okFn), "zero or nil Hedger"},
		{"zero_op", New(WithDelay(delay)), Op[string]{}, "Idempotent"},
		{"nil_fn", New(WithDelay(delay)), Idempotent[string](nil), "Idempotent"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := Do(context.Background(), c.h, nil, c.op)
			e := asError(t, err)
			if !errors.Is(e.Cause, backoff.ErrInvalidConfiguration) || !strings.Contains(e.Cause.Error(), c.says) || e.Attempts != 0 || v != "" {
				t.Errorf("err = %v, want ErrInvalidConfiguration naming %q, before any attempt", err, c.says)
			}
			if c.h != nil && c.name != "discard_type" && c.name != "zero_op" && c.name != "nil_fn" && c.h.Validate() != e.Cause {
				t.Errorf("Validate() = %v, want the same error", c.h.Validate())
			}
		})
	}
	//lint:ignore SA1012 a nil context is what is being tested
	if _, err := Do(nil, New(WithDelay(delay)), nil, Idempotent(okFn)); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("nil context: %v, want ErrInvalidConfiguration", err)
	}
	// No mistake masks another: each argument's, and a missing delay
	// beside the first bad option, are all named.
	//lint:ignore SA1012 a nil context is what is being tested
	_, err := Do(nil, New(WithMaxAttempts(0)), nil, Op[string]{})
	for _, says := range []string{"nil context", "WithMaxAttempts(0)", "WithDelay is required", "Idempotent"} {
		if !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), says) {
			t.Errorf("every mistake at once: %v, want %q named", err, says)
		}
	}
	if err := New(WithDelay(0), WithMaxAttempts(1)).Validate(); err != nil {
		t.Errorf("a zero delay and one attempt: %v, want valid", err)
	}
	// The guard's own error is kept.
	err = New(WithDelay(delay), WithBudget(invalidGuard{})).Validate()
	if err == nil || !strings.Contains(err.Error(), "WithBudget") {
		t.Errorf("invalid budget: %v, want it named", err)
	}
}

func okFn(context.Context) (string, error) { return "ok", nil }
