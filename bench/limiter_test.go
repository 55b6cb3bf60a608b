package bench

import (
	"context"
	"testing"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/adaptivelimiter"
	"github.com/herdsafe/backoff/limiter"
	"go.uber.org/goleak"
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
			err := ours.Run(ctx, func(context.Context) (err error) {
				v, err = op()
				return err
			})
			return v, err
		}},
		{name: "failsafe", call: func(_ context.Context, op operation) (int, error) {
			return fs.Get(op)
		}},
	}
}

// BenchmarkLimiterSuccess is the cost of an adaptive concurrency limiter
// around a call that succeeds, under the limit: what every call of a
// healthy dependency pays for the limiter alone.
func BenchmarkLimiterSuccess(b *testing.B) {
	benchSuccess(b, newLimiterLibs())
}

// Each limiter row calls the operation once and returns its result, and
// admits call after call: every place comes back.
func TestLimiterSuccessCallsOnce(t *testing.T) {
	defer goleak.VerifyNone(t)
	ctx := context.Background()
	for _, l := range newLimiterLibs() {
		op, n := counting(succeed)
		for i := range 100 {
			if v, err := l.call(ctx, op); err != nil || v != 1 {
				t.Fatalf("%s: call %d gave (%d, %v)", l.name, i+1, v, err)
			}
		}
		if n.Load() != 100 {
			t.Errorf("%s: 100 calls ran the operation %d times", l.name, n.Load())
		}
	}
}
