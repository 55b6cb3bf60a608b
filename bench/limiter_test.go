package bench

import (
	"context"
	"testing"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/adaptivelimiter"
	"github.com/herdsafe/backoff/limiter"
)

// newLimiterLibs returns a fresh adaptive concurrency limiter of each
// library, built once with its defaults and called in the per-call form
// each documents: Limiter.Run, and failsafe-go's executor around its
// adaptivelimiter with Get. Both measure every call's latency and move
// their limit from it.
func newLimiterLibs() []lib {
	ours := limiter.New()
	fs := failsafe.With[int](adaptivelimiter.NewWithDefaults[int]())
	return []lib{
		{name: "herdsafe", ours: true, call: func(ctx context.Context, op operation) (int, error) {
			var v int
			err := ours.Run(ctx, keep(&v, op))
			return v, err
		}},
		failsafeRow(fs),
	}
}

// BenchmarkLimiterSuccess is the cost of an adaptive concurrency limiter
// around a call that succeeds, under the limit: what every call of a
// healthy dependency pays for the limiter alone.
func BenchmarkLimiterSuccess(b *testing.B) {
	benchSuccess(b, newLimiterLibs())
}
