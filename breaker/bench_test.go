package breaker_test

import (
	"context"
	"testing"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/guard"
)

// BenchmarkAllowRecord is the admitted success path of a closed breaker:
// what every call of a healthy dependency pays.
func BenchmarkAllowRecord(b *testing.B) {
	cb := breaker.New()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		p, err := cb.Allow(ctx, guard.Call{Attempt: 1})
		if err != nil {
			b.Fatal(err)
		}
		cb.Record(p, guard.Outcome{})
	}
}

// BenchmarkParallelAllowRecord is AllowRecord from every P at once. Run it
// with -cpu 1,2: the success path takes no lock.
func BenchmarkParallelAllowRecord(b *testing.B) {
	for _, c := range []struct {
		name string
		opt  breaker.Option
	}{
		{"consecutive", breaker.WithConsecutiveFailures(5)},
		{"count_window", breaker.WithFailureRate(0.5, 10, 100)},
	} {
		b.Run(c.name, func(b *testing.B) {
			cb := breaker.New(c.opt)
			ctx := context.Background()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					p, err := cb.Allow(ctx, guard.Call{Attempt: 1})
					if err != nil {
						b.Error(err)
						return
					}
					cb.Record(p, guard.Outcome{})
				}
			})
		})
	}
}

// BenchmarkRun is the success path through Run.
func BenchmarkRun(b *testing.B) {
	cb := breaker.New()
	ctx := context.Background()
	fn := func(context.Context) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		if err := cb.Run(ctx, fn); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRefusal is the cost of failing fast while open.
func BenchmarkRefusal(b *testing.B) {
	cb := breaker.New(breaker.WithConsecutiveFailures(1))
	ctx := context.Background()
	p, _ := cb.Allow(ctx, guard.Call{Attempt: 1})
	cb.Record(p, guard.Outcome{Err: errBoom})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cb.Allow(ctx, guard.Call{Attempt: 1}); err == nil {
			b.Fatal("admitted")
		}
	}
}
