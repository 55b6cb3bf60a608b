package telemetrytest

import (
	"context"
	"testing"

	"github.com/herdsafe/backoff"
)

// Nop is an Instrumenter that does nothing: the core's cost of calling
// one, against which the benchmarks of an Instrumenter measure what it
// adds.
type Nop struct{}

// BeforeAttempt returns ctx.
func (Nop) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context { return ctx }

// AfterAttempt does nothing.
func (Nop) AfterAttempt(context.Context, backoff.State) {}

// Succeed is the operation of the success path: it succeeds at once.
func Succeed(context.Context) (int, error) { return 1, nil }

// BenchmarkDo measures the success path with in: backoff.Do in ctx of
// Succeed, given backoff.WithInstrumenter(in) at each call, as a user
// writes it.
func BenchmarkDo(b *testing.B, ctx context.Context, in backoff.Instrumenter) {
	b.Helper()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := backoff.Do(ctx, Succeed, backoff.WithInstrumenter(in)); err != nil {
			b.Fatal(err)
		}
	}
}
