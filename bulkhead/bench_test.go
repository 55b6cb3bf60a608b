package bulkhead_test

import (
	"context"
	"testing"

	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
)

// The benchmarks measure the admitted success path, a slot free and nobody
// queued: Allow then Record. The capacity is larger than the goroutines of
// RunParallel, so no call is refused.
const benchCapacity = 1024

func benchAllowRecord(b *testing.B, g guard.Guard, ctx context.Context) {
	b.ReportAllocs()
	for b.Loop() {
		p, err := g.Allow(ctx, guard.Call{Attempt: 1})
		if err != nil {
			b.Fatal(err)
		}
		g.Record(p, guard.Outcome{})
	}
}

func benchAllowRecordParallel(b *testing.B, g guard.Guard, ctx context.Context) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p, err := g.Allow(ctx, guard.Call{Attempt: 1})
			if err != nil {
				b.Error(err)
				return
			}
			g.Record(p, guard.Outcome{})
		}
	})
}

func BenchmarkAllowRecord(b *testing.B) {
	ctx := context.Background()
	b.Run("Bulkhead", func(b *testing.B) { benchAllowRecord(b, bulkhead.New(benchCapacity), ctx) })
	b.Run("Bulkhead-queue", func(b *testing.B) {
		benchAllowRecord(b, bulkhead.New(benchCapacity, bulkhead.WithQueue(benchCapacity)), ctx)
	})
	b.Run("PriorityBulkhead", func(b *testing.B) {
		benchAllowRecord(b, bulkhead.NewPriority(benchCapacity), bulkhead.WithPriority(ctx, bulkhead.Low))
	})
}

func BenchmarkAllowRecordParallel(b *testing.B) {
	ctx := context.Background()
	b.Run("Bulkhead", func(b *testing.B) { benchAllowRecordParallel(b, bulkhead.New(benchCapacity), ctx) })
	b.Run("PriorityBulkhead", func(b *testing.B) {
		benchAllowRecordParallel(b, bulkhead.NewPriority(benchCapacity), bulkhead.WithPriority(ctx, bulkhead.Low))
	})
}

func BenchmarkRun(b *testing.B) {
	ctx := context.Background()
	fn := func(context.Context) error { return nil }
	g := bulkhead.New(benchCapacity)
	b.ReportAllocs()
	for b.Loop() {
		if err := g.Run(ctx, fn); err != nil {
			b.Fatal(err)
		}
	}
}
