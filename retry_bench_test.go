package backoff

import (
	"context"
	"testing"
)

func BenchmarkRetrySuccess(b *testing.B) {
	b.Run("defaults", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = Retry(succeed)
		}
	})
	b.Run("classifier", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = Retry(succeed, WithRetryable(isTransient))
		}
	})
	b.Run("instrumenter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = Retry(succeed, WithInstrumenter(nopInstrumenter{}))
		}
	})
	b.Run("Retrier", func(b *testing.B) {
		b.ReportAllocs()
		ctx := context.Background()
		for b.Loop() {
			_ = retrier.DoErr(ctx, func(context.Context) error { return nil })
		}
	})
	b.Run("Do", func(b *testing.B) {
		b.ReportAllocs()
		ctx := context.Background()
		for b.Loop() {
			_, _ = Do(ctx, func(context.Context) (int, error) { return 1, nil })
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				_, _ = Retry(succeed, WithRetryable(isTransient))
			}
		})
	})
}

// Two failures and a success with zero waits: the driver's own cost.
func BenchmarkThreeAttemptsZeroDelay(b *testing.B) {
	b.ReportAllocs()
	zero := &ZeroBackOff{}
	for b.Loop() {
		n := 0
		_, _ = Retry(func() (int, error) {
			if n++; n < 3 {
				return 0, errTransient
			}
			return n, nil
		}, WithBackOff(zero))
	}
}

func BenchmarkNextBackOff(b *testing.B) {
	for _, j := range []Jitter{RandomizationJitter, FullJitter, DecorrelatedJitter} {
		b.Run(j.String(), func(b *testing.B) {
			b.ReportAllocs()
			p := NewExponentialBackOff()
			p.Jitter = j
			for i := 0; b.Loop(); i++ {
				if i%16 == 0 {
					p.Reset()
				}
				_ = p.NextBackOff()
			}
		})
	}
}
