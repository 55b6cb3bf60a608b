package budget

import (
	"context"
	"errors"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
)

// TestSuccessPathAllocs checks that admitted successes allocate nothing:
// a first attempt, and a retry.
func TestSuccessPathAllocs(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		b    *Budget
	}{{"tokens", NewTokenBucket()}, {"ratio", NewRatio(WithRetryRatio(1))}} {
		if allocs := guardtest.AdmittedAllocs(t, 1000, tc.b, ctx, first, retry); allocs != 0 {
			t.Errorf("%s: %v allocs, want 0", tc.name, allocs)
		}
	}
}

func BenchmarkSuccess(b *testing.B) {
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		g    *Budget
	}{{"tokens", NewTokenBucket()}, {"ratio", NewRatio()}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, _ := bc.g.Allow(ctx, first)
				bc.g.Record(p, guard.Outcome{})
			}
		})
		b.Run(bc.name+"/parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					p, _ := bc.g.Allow(ctx, first)
					bc.g.Record(p, guard.Outcome{})
				}
			})
		})
	}
}

// BenchmarkRetry measures an admitted retry that succeeds: the failure
// path's admission.
func BenchmarkRetry(b *testing.B) {
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		g    *Budget
	}{{"tokens", NewTokenBucket()}, {"ratio", NewRatio(WithRetryRatio(1000))}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = bc.g.Allow(ctx, first)
				p, _ := bc.g.Allow(ctx, retry)
				bc.g.Record(p, guard.Outcome{})
			}
		})
	}
}

// Allow refuses a nil context, token bucket or ratio, first attempt or
// retry, as every guard of the module does, with the same words: an
// error matching ErrInvalidConfiguration, and nothing counted.
func TestAllowNilContext(t *testing.T) {
	spent := NewTokenBucket(WithMaxTokens(2))
	spent.Record(guard.Permit{}, guard.Outcome{Err: errDown})
	guardtest.RefusesNilContextUncounted(t, "budget", (*Budget).Stats, []guardtest.Case[*Budget]{
		{Name: "TokenBucket", Guard: NewTokenBucket()},
		{Name: "TokenBucket_spent", Guard: spent},
		{Name: "TokenBucket_invalid", Guard: NewTokenBucket(WithMaxTokens(0))},
		{Name: "Ratio", Guard: NewRatio(WithClock(clock.NewMock()))},
		{Name: "Ratio_invalid", Guard: NewRatio(WithWindow(0))},
		{Name: "zero", Guard: &Budget{}},
		{Name: "nil", Guard: nil},
	})
}

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
}
