package bench

import (
	"context"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/herdsafe/backoff/breaker"
	"github.com/sony/gobreaker/v2"
	"go.uber.org/goleak"
)

// Every breaker compared trips after 5 failures in a row and stays open
// for a minute.
const (
	breakerTrip = 5
	breakerOpen = time.Minute
)

// newBreakerLibs returns a fresh breaker of each library, built once and
// called in the per-call form each documents: herdsafe's Breaker.Run,
// failsafe-go's executor (failsafe.With around a circuit breaker) with
// Get, and gobreaker's CircuitBreaker.Execute. Each recovers a panic of
// the operation, records it, and lets it go on.
func newBreakerLibs() []lib {
	ours := breaker.New(breaker.WithConsecutiveFailures(breakerTrip), breaker.WithOpenDuration(breakerOpen))
	fs := failsafe.With[int](circuitbreaker.NewBuilder[int]().
		WithFailureThreshold(breakerTrip).
		WithDelay(breakerOpen).
		Build())
	gb := gobreaker.NewCircuitBreaker[int](gobreaker.Settings{
		Timeout:     breakerOpen,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= breakerTrip },
	})
	return []lib{
		{name: "herdsafe", ours: true, call: func(ctx context.Context, op operation) (int, error) {
			var v int
			err := ours.Run(ctx, keep(&v, op))
			return v, err
		}},
		failsafeRow(fs),
		{name: "gobreaker", call: func(_ context.Context, op operation) (int, error) {
			return gb.Execute(op)
		}},
	}
}

// BenchmarkBreakerSuccess is the cost of a closed breaker around a call
// that succeeds: what every call of a healthy dependency pays.
func BenchmarkBreakerSuccess(b *testing.B) {
	benchSuccess(b, newBreakerLibs())
}

// Each breaker row calls a succeeding operation once, still runs the
// fifth call after four failures in a row, and refuses the sixth without
// calling the operation.
func TestBreakerConfiguredAlike(t *testing.T) {
	defer goleak.VerifyNone(t)
	ctx := context.Background()
	for _, l := range newBreakerLibs() {
		callsOnce(t, l, 1)
		op, n := counting(failing)
		for range breakerTrip {
			if _, err := l.call(ctx, op); err != errSentinel {
				t.Errorf("%s: a failure gave %v", l.name, err)
			}
		}
		if _, err := l.call(ctx, op); err == nil || err == errSentinel || n.Load() != breakerTrip {
			t.Errorf("%s: after %d failures got %v and %d calls, want a refusal", l.name, breakerTrip, err, n.Load())
		}
	}
}
