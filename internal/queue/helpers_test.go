package queue_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/queue"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
)

// errFull is the sentinel of the tests' guard, and errUnbalanced its panic
// for a Record too many.
var errFull = errors.New("guard: full")

const errUnbalanced = "guard: Record without a call in flight"

// gate is the least guard on a Queue, as Bulkhead and Limiter use theirs:
// Allow tries the fast path, then Acquire; Record releases.
type gate struct{ *queue.Queue }

func (g gate) Allow(ctx context.Context, _ guard.Call) (guard.Permit, error) {
	if _, ok := g.TryAcquire(g.Limit()); ok {
		return guard.Permit{}, nil
	}
	return guard.Permit{}, g.Acquire(ctx)
}

func (g gate) Record(guard.Permit, guard.Outcome) { g.Release() }

// newGate returns a gate of limit slots and a queue of size, timing the
// maximum wait on clk (the time package's clock if nil).
func newGate(limit, size int, maxWait time.Duration, clk clock.Clock) gate {
	if clk == nil {
		clk = clock.New()
	}
	q := new(queue.Queue)
	q.Init(queue.Config{Settings: queue.Settings{Size: size, MaxWait: maxWait}, Limit: limit, Clock: clk, Name: "guard", Refused: errFull, Unbalanced: errUnbalanced})
	return gate{q}
}

// fill takes n slots of g, failing the test if one is refused.
func fill(t *testing.T, g gate, n int) {
	t.Helper()
	for i := range n {
		if _, err := g.Allow(context.Background(), guard.Call{}); err != nil {
			t.Fatalf("call %d of %d refused: %v", i+1, n, err)
		}
	}
}

// queueCallers takes, in a testing/synctest bubble, every slot of g, and
// queues n callers on it in the order of their ids, from 0: each queued
// before the next arrives.
func queueCallers(t *testing.T, g gate, n int) *guardtest.Waiters {
	t.Helper()
	fill(t, g, int(g.Limit()))
	w := guardtest.NewWaiters(n)
	for i := range n {
		w.Start(g, context.Background(), i)
		synctest.Wait()
	}
	return w
}

// release gives back n slots of g.
func release(g gate, n int) {
	for range n {
		g.Record(guard.Permit{}, guard.Outcome{})
	}
}

// wantLoad checks the calls in flight and the callers queued.
func wantLoad(t *testing.T, g gate, inFlight, queued int) {
	t.Helper()
	if n, m := g.Load(); n != inFlight || m != queued {
		t.Errorf("Load() = %d in flight, %d queued; want %d, %d", n, m, inFlight, queued)
	}
}

// wantGaveUp checks that err is the error of a caller whose context ended,
// matching each of want and not the guard's sentinel.
func wantGaveUp(t *testing.T, err error, want ...error) {
	t.Helper()
	if !queue.GaveUp(err) || errors.Is(err, errFull) {
		t.Fatalf("%v: want the error of a caller that gave up, not a refusal", err)
	}
	for _, w := range want {
		if !errors.Is(err, w) {
			t.Errorf("%v does not match %v", err, w)
		}
	}
}
