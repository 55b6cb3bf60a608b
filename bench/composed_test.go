package bench

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/failsafe-go/failsafe-go"
	fsbulkhead "github.com/failsafe-go/failsafe-go/bulkhead"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/failsafe-go/failsafe-go/timeout"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/policy"
	"go.uber.org/goleak"
)

// The per-attempt deadline of the composed policies.
const composedTimeout = time.Second

// newComposedLibs returns each library's composition of the same four
// policies, outermost first: a bulkhead of bulkheadCapacity slots, a
// retry of maxAttempts attempts, a circuit breaker that trips after
// breakerTrip failures in a row (inside the retry, so that it sees each
// attempt), and a timeout of composedTimeout on each attempt. Each is
// built once and reused: herdsafe's Policy run with policy.Do, and
// failsafe-go's executor, failsafe.With(bulkhead, retrypolicy,
// circuitbreaker, timeout), whose first policy is the outermost as its
// documentation says, run with Get.
//
// The retry stages keep their libraries' own waits: herdsafe's stage
// default (full jitter from 100 ms) and failsafe-go's as in its other rows
// (500 ms to 60 s, ±50%). The success path waits for neither.
func newComposedLibs() []lib {
	ours := policy.New(
		policy.Guard(bulkhead.New(bulkheadCapacity)),
		policy.Retry(backoff.WithMaxTries(maxAttempts)),
		policy.Guard(breaker.New(breaker.WithConsecutiveFailures(breakerTrip))),
		policy.Timeout(composedTimeout),
	)
	fs := failsafe.With[int](
		fsbulkhead.New[int](bulkheadCapacity),
		retrypolicy.NewBuilder[int]().
			WithMaxAttempts(maxAttempts).
			WithBackoff(500*time.Millisecond, 60*time.Second).
			WithJitterFactor(0.5).
			Build(),
		circuitbreaker.NewBuilder[int]().WithFailureThreshold(breakerTrip).Build(),
		timeout.New[int](composedTimeout),
	)
	return []lib{
		{name: "herdsafe", ours: true, call: func(ctx context.Context, op operation) (int, error) {
			return policy.Do(ctx, ours, func(context.Context) (int, error) { return op() })
		}},
		failsafeRow(fs),
	}
}

// BenchmarkComposedSuccess is the cost of a composed policy (bulkhead,
// retry, circuit breaker, per-attempt timeout) around a call that
// succeeds: what every call of a healthy service pays for the four.
func BenchmarkComposedSuccess(b *testing.B) {
	benchSuccess(b, newComposedLibs())
}

// Each composed row calls a succeeding operation once, and gives a
// failing one exactly maxAttempts attempts; the waits between them pass on
// the virtual time of testing/synctest.
func TestComposedConfiguredAlike(t *testing.T) {
	defer goleak.VerifyNone(t)
	synctest.Test(t, func(t *testing.T) {
		for _, l := range newComposedLibs() {
			callsOnce(t, l, 1)
			op, n := counting(failing)
			if _, err := l.call(context.Background(), op); err == nil || n.Load() != maxAttempts {
				t.Errorf("%s: a failing operation gave %v after %d attempts, want an error after %d",
					l.name, err, n.Load(), maxAttempts)
			}
		}
	})
}

// The breaker of each composed row is inside its retry: it counts each
// attempt, so a failing call trips it at its breakerTrip-th attempt, and
// the next call reaches the operation no more.
func TestComposedBreakerCountsAttempts(t *testing.T) {
	defer goleak.VerifyNone(t)
	synctest.Test(t, func(t *testing.T) {
		for _, l := range newComposedLibs() {
			op, n := counting(failing)
			if _, err := l.call(context.Background(), op); err == nil || n.Load() != breakerTrip {
				t.Errorf("%s: a failing call gave %v after %d attempts, want an error after %d", l.name, err, n.Load(), breakerTrip)
			}
			if _, err := l.call(context.Background(), op); err == nil || n.Load() != breakerTrip {
				t.Errorf("%s: the next call got %v with %d attempts in all, want a refusal with still %d",
					l.name, err, n.Load(), breakerTrip)
			}
		}
	})
}

// The bulkhead of each composed row admits bulkheadCapacity calls at once
// and refuses the next without an attempt.
func TestComposedBulkheadRefusesWhenFull(t *testing.T) {
	defer goleak.VerifyNone(t)
	synctest.Test(t, func(t *testing.T) {
		for _, l := range newComposedLibs() {
			release := make(chan struct{})
			held, n := counting(func() (int, error) {
				<-release
				return 1, nil
			})
			var wg sync.WaitGroup
			for range bulkheadCapacity {
				wg.Go(func() {
					if _, err := l.call(context.Background(), held); err != nil {
						t.Errorf("%s: a call in a free slot gave %v", l.name, err)
					}
				})
			}
			synctest.Wait() // every slot taken
			op, m := counting(succeed)
			if _, err := l.call(context.Background(), op); err == nil || m.Load() != 0 {
				t.Errorf("%s: a call with every slot taken gave %v after %d attempts, want a refusal and none",
					l.name, err, m.Load())
			}
			close(release)
			wg.Wait()
			if got := n.Load(); got != bulkheadCapacity {
				t.Errorf("%s: %d attempts in the slots, want %d", l.name, got, bulkheadCapacity)
			}
		}
	})
}
