package hedge

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
	"go.uber.org/goleak"
)

// On the real clock, outside any bubble: once the call has returned, the
// losers, which honour their contexts, end, and no goroutine is left.
func TestNoGoroutineLeft(t *testing.T) {
	defer goleak.VerifyNone(t)
	var n atomic.Int32
	op := Idempotent(func(ctx context.Context) (int, error) {
		if n.Add(1) == 3 {
			return 3, nil
		}
		<-ctx.Done()
		return 0, ctx.Err()
	})
	h := New(WithDelay(0), WithMaxAttempts(3))
	if v, err := Do(context.Background(), h, nil, op); v != 3 || err != nil {
		t.Fatalf("(%d, %v), want the third attempt's 3", v, err)
	}
	// The caller cancels: Do returns, and the attempts end.
	n.Store(-10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := Do(ctx, h, nil, op); done <- err }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// The winner's context is left alive by Do and ends with the caller's.
func TestWinnerContextEndsWithCaller(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var got context.Context
	_, err := Do(ctx, New(WithDelay(0), WithMaxAttempts(1)), nil, Idempotent(func(ctx context.Context) (int, error) {
		got = ctx
		return 1, nil
	}))
	if err != nil || got.Err() != nil {
		t.Fatalf("err %v, winner's context %v; want success and a live context", err, got.Err())
	}
	cancel()
	if got.Err() != context.Canceled {
		t.Errorf("after the caller cancelled, the winner's context: %v", got.Err())
	}
}

// Many concurrent calls through one Hedger: each returns one result and
// discards the others, exactly, and the budget records exactly the
// attempts it admitted.
func TestConcurrentCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const goroutines, each, attempts = 16, 50, 3
		var discarded atomic.Int64
		var admitted atomic.Int64
		g := &spyGuard{admit: func(guard.Call) bool { return admitted.Add(1)%2 == 0 }}
		h := New(WithDelay(0), WithMaxAttempts(attempts), WithBudget(g), WithDiscard(func(int) { discarded.Add(1) }))
		var made atomic.Int64
		op := Idempotent(func(ctx context.Context) (int, error) { // ignores its context
			made.Add(1)
			return 1, nil
		})
		var wg sync.WaitGroup
		for range goroutines {
			wg.Go(func() {
				for range each {
					if v, err := Do(context.Background(), h, nil, op); v != 1 || err != nil {
						t.Errorf("(%d, %v), want success", v, err)
					}
				}
			})
		}
		wg.Wait()
		synctest.Wait() // the losers have returned
		calls, outcomes, _ := g.snapshot()
		if len(calls) != goroutines*each*(attempts-1) {
			t.Errorf("the budget was asked %d times, want %d", len(calls), goroutines*each*(attempts-1))
		}
		if want := int64(len(calls)) / 2; int64(len(outcomes)) != want {
			t.Errorf("%d outcomes recorded, want %d (the admitted attempts)", len(outcomes), want)
		}
		if made.Load() != goroutines*each+int64(len(outcomes)) {
			t.Errorf("%d attempts made, want %d", made.Load(), goroutines*each+int64(len(outcomes)))
		}
		if discarded.Load() != made.Load()-goroutines*each {
			t.Errorf("%d results discarded, want %d (all but one per call)", discarded.Load(), made.Load()-goroutines*each)
		}
	})
}

func BenchmarkDo(b *testing.B) {
	ctx := context.Background()
	fast := Idempotent(func(context.Context) (int, error) { return 1, nil })
	var n atomic.Int64
	second := Idempotent(func(ctx context.Context) (int, error) { // every other attempt waits to be cancelled
		if n.Add(1)%2 == 1 {
			<-ctx.Done()
			return 0, ctx.Err()
		}
		return 1, nil
	})
	h := New(WithDelay(time.Second)) // the primary always answers first
	all := New(WithDelay(0), WithMaxAttempts(2))
	inner := policy.New(policy.Retry())
	b.Run("primary_wins", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = Do(ctx, h, nil, fast)
		}
	})
	b.Run("primary_wins_inner_policy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = Do(ctx, h, inner, fast)
		}
	})
	b.Run("primary_wins_parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				_, _ = Do(ctx, h, nil, fast)
			}
		})
	})
	b.Run("two_attempts_one_cancelled", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = Do(ctx, all, nil, second)
		}
	})
}
