package bench

import (
	"context"
	"testing"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/adaptivethrottler"
	"github.com/herdsafe/backoff/throttle"
)

// newThrottleLibs returns a fresh adaptive throttle of each library (the
// client-side throttling of Google's SRE book), built once with its
// defaults and called in the per-call form each documents:
// Throttle.Run, and failsafe-go's executor around its
// adaptivethrottler with Get.
func newThrottleLibs() []lib {
	ours := throttle.New()
	fs := failsafe.With[int](adaptivethrottler.NewWithDefaults[int]())
	return []lib{
		{name: "herdsafe", ours: true, call: func(ctx context.Context, op operation) (int, error) {
			var v int
			err := ours.Run(ctx, keep(&v, op))
			return v, err
		}},
		failsafeRow(fs),
	}
}

// BenchmarkThrottleSuccess is the cost of an adaptive throttle around a
// call that succeeds, on a healthy dependency: what every call pays.
func BenchmarkThrottleSuccess(b *testing.B) {
	benchSuccess(b, newThrottleLibs())
}
