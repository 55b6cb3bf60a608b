package budget

import (
	"context"
	"errors"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
)

// TestRun checks Run on its own.
func TestRun(t *testing.T) {
	t.Run("success", func(t *testing.T) {
		b := NewTokenBucket()
		fail(b, 1)
		if err := b.Run(t.Context(), func(context.Context) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if got := b.Stats().Tokens; got != 9.1 {
			t.Fatalf("tokens = %v, want 9.1", got)
		}
	})
	t.Run("failure", func(t *testing.T) {
		b := NewTokenBucket()
		if err := b.Run(t.Context(), func(context.Context) error { return errDown }); err != errDown {
			t.Fatalf("err = %v, want fn's error", err)
		}
		if got := b.Stats().Tokens; got != 9 {
			t.Fatalf("tokens = %v, want 9", got)
		}
	})
	t.Run("abandoned", func(t *testing.T) {
		b := NewTokenBucket()
		ctx, cancel := context.WithCancel(t.Context())
		err := b.Run(ctx, func(context.Context) error { cancel(); return errDown })
		if err != errDown || b.Stats().Tokens != 10 {
			t.Fatalf("err = %v, tokens = %v; want errDown and 10 (not counted)", err, b.Stats().Tokens)
		}
	})
	t.Run("panic", func(t *testing.T) {
		b := NewTokenBucket()
		func() {
			defer func() {
				if r := recover(); r != "boom" {
					t.Fatalf("recovered %v, want fn's panic", r)
				}
			}()
			_ = b.Run(t.Context(), func(context.Context) error { panic("boom") })
		}()
		if got := b.Stats().Tokens; got != 9 {
			t.Fatalf("tokens = %v, want 9: a panic is a failure", got)
		}
	})
	t.Run("first_attempt_always_runs", func(t *testing.T) {
		b := NewTokenBucket()
		fail(b, 10)
		ran := false
		if err := b.Run(t.Context(), func(context.Context) error { ran = true; return nil }); err != nil || !ran {
			t.Fatalf("err = %v, ran = %v; want a first attempt run", err, ran)
		}
	})
	t.Run("retry_loop_of_your_own", func(t *testing.T) {
		b := NewTokenBucket(WithMaxTokens(2)) // one failure stops retries
		calls, attempt := 0, 0
		err := backoff.DoErr(t.Context(), func(ctx context.Context) error {
			attempt++
			return guard.Run(ctx, b, guard.Call{Attempt: attempt}, func(context.Context) error { calls++; return errDown })
		}, backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(5))
		var e *backoff.Error
		if !errors.As(err, &e) || !errors.Is(e.Cause, ErrBudgetExhausted) || !errors.Is(e.Cause, backoff.ErrRefused) ||
			e.LastErr != errDown || calls != 1 || attempt != 2 {
			t.Fatalf("calls = %d, attempts = %d, err = %+v; want 1 call, then the retry refused, stopping the driver",
				calls, attempt, err)
		}
	})
	t.Run("nil", func(t *testing.T) {
		b := NewTokenBucket()
		if err := b.Run(t.Context(), nil); !errors.Is(err, backoff.ErrInvalidConfiguration) {
			t.Fatalf("Run(nil fn) = %v", err)
		}
		//lint:ignore SA1012 checking that a nil context is reported
		if err := b.Run(nil, func(context.Context) error { return nil }); !errors.Is(err, backoff.ErrInvalidConfiguration) {
			t.Fatalf("Run(nil ctx) = %v", err)
		}
	})
	t.Run("misconfigured", func(t *testing.T) {
		b := NewRatio(WithWindow(0))
		ran := false
		err := b.Run(t.Context(), func(context.Context) error { ran = true; return nil })
		if ran || !errors.Is(err, backoff.ErrInvalidConfiguration) || !errors.Is(err, backoff.ErrRefused) {
			t.Fatalf("err = %v, ran = %v", err, ran)
		}
	})
}
