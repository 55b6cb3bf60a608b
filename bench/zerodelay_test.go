package bench

import (
	"context"
	"testing"
)

// BenchmarkThreeAttemptsZeroDelay runs an operation that fails twice with a
// preallocated error, then succeeds, with zero waits between attempts: the
// machinery's own cost of two retries, with no time spent waiting.
func BenchmarkThreeAttemptsZeroDelay(b *testing.B) {
	ctx := context.Background()
	for _, l := range zeroLibs {
		b.Run(l.name, func(b *testing.B) {
			f := &flaky{}
			op := f.op
			b.ReportAllocs()
			for b.Loop() {
				if _, err := l.call(ctx, op); err != nil {
					b.Fatal(err)
				}
			}
			if f.calls%3 != 0 {
				b.Fatalf("%d attempts, not a multiple of 3", f.calls)
			}
		})
	}
}
