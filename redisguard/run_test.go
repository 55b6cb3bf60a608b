package redisguard

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
)

// TestBreakerRun: Run refuses with an error that matches backoff.ErrRefused
// and wraps the breaker's own, without calling fn; records a panic with
// guard.ErrPanicked, which the classifier sees.
func TestBreakerRun(t *testing.T) {
	v := newVirtual()
	var seen []error
	b := sharedBreakers(t, v, 1, WithBreaker(breaker.WithConsecutiveFailures(2)), WithBreaker(breaker.WithIsFailure(func(err error) bool {
		seen = append(seen, err)
		return true
	})))[0]

	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want the function's panic", r)
			}
		}()
		_ = b.Run(bg, func(context.Context) error { panic("boom") })
	}()
	if len(seen) != 1 || seen[0] != guard.ErrPanicked {
		t.Fatalf("the classifier saw %v, want [guard.ErrPanicked]", seen)
	}
	if err := b.Run(bg, func(context.Context) error { return errDown }); err != errDown {
		t.Fatalf("Run = %v, want fn's error unchanged", err)
	}

	ran := false
	err := b.Run(bg, func(context.Context) error { ran = true; return nil })
	if ran || !errors.Is(err, backoff.ErrRefused) || !isOpen(err, breaker.Open) {
		t.Fatalf("Run on the open breaker = %v (fn ran: %v), want a refusal matching ErrRefused and ErrCircuitOpen", err, ran)
	}
}

// TestRunIsGuardRun: both guards' Run is guard.Run: a ctx done already is
// refused before the guard is asked (no round trip, nothing counted), with
// an error that matches backoff.ErrRefused and wraps the ctx's cause; a
// nil ctx, fn or guard is reported as guard.Run reports it.
func TestRunIsGuardRun(t *testing.T) {
	v := newVirtual()
	addr := needRedis(t)
	done, cancel := context.WithCancelCause(bg)
	errGone := errors.New("caller gone")
	cancel(errGone)
	var none context.Context // nil, on purpose
	ok := func(context.Context) error { return nil }
	for name, g := range map[string]interface {
		guard.Guard
		Run(context.Context, func(context.Context) error) error
	}{
		"Breaker": sharedBreakers(t, v, 1)[0],
		"Budget":  NewTokenBucket(newClient(t, addr), name(t), generous),
	} {
		t.Run(name, func(t *testing.T) {
			trips, ran := roundTrips(g), false
			if err := g.Run(done, func(context.Context) error { ran = true; return nil }); ran ||
				!errors.Is(err, backoff.ErrRefused) || !errors.Is(err, errGone) || roundTrips(g) != trips {
				t.Errorf("Run with a ctx done = %v (fn ran: %v, round trips %d), want a refusal wrapping its cause, nothing asked",
					err, ran, roundTrips(g)-trips)
			}
			for _, err := range []error{g.Run(none, ok), g.Run(bg, nil)} {
				if !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), "guard.Run was given a nil") {
					t.Errorf("Run = %v, want guard.Run's ErrInvalidConfiguration", err)
				}
			}
		})
	}
	for _, err := range []error{(*Breaker)(nil).Run(bg, ok), (*Budget)(nil).Run(bg, ok)} {
		if !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), "nil Guard") {
			t.Errorf("Run on a nil guard = %v, want guard.Run's ErrInvalidConfiguration", err)
		}
	}
}

// TestBudgetRun: Run makes a first attempt, which the budget always
// admits and whose failure it counts.
func TestBudgetRun(t *testing.T) {
	addr := needRedis(t)
	b := NewTokenBucket(newClient(t, addr), name(t), WithBudget(budget.WithMaxTokens(4)), generous)
	calls := 0
	for range 6 { // 4 tokens spent, and then some: first attempts all the same
		if err := b.Run(bg, func(context.Context) error { calls++; return errDown }); err != errDown {
			t.Fatalf("Run = %v, want fn's error unchanged", err)
		}
	}
	if s := b.Stats(); calls != 6 || s.Tokens != 0 {
		t.Fatalf("%d calls, %v tokens left; want 6 calls, 0 tokens", calls, s.Tokens)
	}
	if _, err := b.Allow(bg, retry); !errors.Is(err, budget.ErrBudgetExhausted) {
		t.Fatalf("a retry after Run's failures: %v, want it refused", err)
	}
	ran := false
	err := (&Budget{}).Run(bg, func(context.Context) error { ran = true; return nil })
	if ran || !errors.Is(err, backoff.ErrRefused) || !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("Run of a zero Budget = %v (fn ran: %v), want its configuration error as a refusal", err, ran)
	}
}
