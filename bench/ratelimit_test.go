package bench

import (
	"context"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/ratelimiter"
	"github.com/herdsafe/backoff/ratelimit"
)

// rateLimit is the rate of both libraries' rows: 2^30 calls a second, all
// of them allowed at once, so that no call of a benchmark is refused.
const rateLimit = 1 << 30

// newRateLimiterLibs returns a fresh rate limiter of each library, built
// once with the same rate and burst and called in the per-call form each
// documents: Limiter.Run, and failsafe-go's executor around its bursty
// ratelimiter (rateLimit permits a second) with Get.
func newRateLimiterLibs() []lib {
	ours := ratelimit.New(rateLimit, rateLimit)
	fs := failsafe.With[int](ratelimiter.NewBursty[int](rateLimit, time.Second))
	return []lib{
		{name: "herdsafe", ours: true, call: func(ctx context.Context, op operation) (int, error) {
			var v int
			err := ours.Run(ctx, keep(&v, op))
			return v, err
		}},
		failsafeRow(fs),
	}
}

// BenchmarkRateLimiterSuccess is the cost of a rate limiter around a call
// that succeeds, under its rate: what every admitted call pays.
func BenchmarkRateLimiterSuccess(b *testing.B) {
	benchSuccess(b, newRateLimiterLibs())
}
