package limiter_test

import (
	"context"
	"testing"

	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/limiter"
)

// The benchmarks measure the admitted success path, under the limit and
// nobody queued: Allow then Record, a sample window ending every 100 ms.
// The limit is above the goroutines of RunParallel, so no call is
// refused.
func benchAllowRecord(b *testing.B, l *limiter.Limiter, ctx context.Context) {
	b.ReportAllocs()
	for b.Loop() {
		p, err := l.Allow(ctx, guard.Call{Attempt: 1})
		if err != nil {
			b.Fatal(err)
		}
		l.Record(p, guard.Outcome{})
	}
}

func BenchmarkAllowRecord(b *testing.B) {
	ctx := context.Background()
	b.Run("gradient", func(b *testing.B) { benchAllowRecord(b, limiter.New(), ctx) })
	b.Run("vegas", func(b *testing.B) { benchAllowRecord(b, limiter.New(limiter.WithVegas(3, 6)), ctx) })
	b.Run("priorities", func(b *testing.B) {
		benchAllowRecord(b, limiter.New(limiter.WithPriorityThresholds(0.5, 0.8)), bulkhead.WithPriority(ctx, bulkhead.Critical))
	})
}

func BenchmarkAllowRecordParallel(b *testing.B) {
	l := limiter.New(limiter.WithFloor(1024), limiter.WithCeiling(1024))
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p, err := l.Allow(ctx, guard.Call{Attempt: 1})
			if err != nil {
				b.Error(err)
				return
			}
			l.Record(p, guard.Outcome{})
		}
	})
}
