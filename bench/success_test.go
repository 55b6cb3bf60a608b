package bench

import (
	"context"
	"testing"
)

// BenchmarkSuccessFirstTry is the cost of the retry machinery when the
// operation succeeds at once: what every call of a healthy service pays.
func BenchmarkSuccessFirstTry(b *testing.B) {
	benchSuccess(b, expoLibs)
}

// benchSuccess times each of libs calling an operation that succeeds at
// once, a sub-benchmark per library.
func benchSuccess(b *testing.B, libs []lib) {
	ctx := context.Background()
	for _, l := range libs {
		b.Run(l.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := l.call(ctx, succeed); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParallelSuccess is SuccessFirstTry from every P at once. Run it
// with -cpu 1,2: a library with no shared lock or counter on its success
// path costs no more per operation at -cpu 2 than at -cpu 1.
func BenchmarkParallelSuccess(b *testing.B) {
	ctx := context.Background()
	for _, l := range expoLibs {
		b.Run(l.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := l.call(ctx, succeed); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
