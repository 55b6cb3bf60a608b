package pushback_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/pushback"
)

// errSlotsTaken is the refusal of pool, a guard of the test's own, for
// its load.
var errSlotsTaken = errors.New("pool: every slot taken")

// pool is a guard this package has never heard of: what it tells of its
// load is its Load alone.
type pool struct{ load guard.Load }

func (p *pool) Allow(context.Context, guard.Call) (guard.Permit, error) { return guard.Permit{}, nil }
func (p *pool) Record(guard.Permit, guard.Outcome)                      {}
func (p *pool) Load() guard.Load                                        { return p.load }

// plain is a guard that is no guard.Loader.
type plain struct{}

func (plain) Allow(context.Context, guard.Call) (guard.Permit, error) { return guard.Permit{}, nil }
func (plain) Record(guard.Permit, guard.Outcome)                      {}

// A guard of your own that is a guard.Loader is read as the repository's
// own are: its demand and its rejection lengthen the wait of a refusal
// that matches its Full, and make its pressure; its queue is a Gate's.
func TestGuardOfYourOwnLoad(t *testing.T) {
	r := exact(time.Second)
	p := &pool{load: guard.Load{InFlight: 4, Queued: 2, Capacity: 4, Queues: true, Full: errSlotsTaken}}
	if got := r.Wait(p, guard.Refusal(fmt.Errorf("busy: %w", errSlotsTaken))); got != 1500*time.Millisecond {
		t.Errorf("6 callers for 4 slots: Wait = %v, want 1s × 6/4", got)
	}
	if got := r.Wait(p, errors.New("another refusal")); got != time.Second {
		t.Errorf("a refusal that is not Full: Wait = %v, want the base", got)
	}
	if got := pushback.Pressure(p); got != 1.5 {
		t.Errorf("Pressure = %v, want 6/4", got)
	}
	if got := pushback.Queued(p); got != 2 {
		t.Errorf("Queued = %v, want 2", got)
	}

	clk := clock.NewMock()
	gate := pushback.NewGate(p, clk, 1)
	start := gate.Start()
	clk.Add(300 * time.Millisecond)
	gate.Admitted(start)
	if got := gate.QueueTime(); got != 300*time.Millisecond {
		t.Errorf("a Loader that Queues, 2 queued: QueueTime = %v, want the last wait, 300ms", got)
	}
	if why := gate.Refuse(2, 0, false); why == "" {
		t.Error("a retry at a pressure of 1.5, the threshold 1: let through, want it refused")
	}

	p.load = guard.Load{Rejection: 0.75, Full: errSlotsTaken}
	if got := r.Wait(p, errSlotsTaken); got != 4*time.Second {
		t.Errorf("a rejection of 3/4: Wait = %v, want 1s ÷ (1 − 3/4)", got)
	}
	if got := pushback.Pressure(p); got != 1 {
		t.Errorf("a rejecting guard: Pressure = %v, want 1", got)
	}
	p.load = guard.Load{Refusing: true}
	if got, w := pushback.Pressure(p), r.Wait(p, errSlotsTaken); got != 1 || w != time.Second {
		t.Errorf("a guard Refusing, with no Full: Pressure = %v, Wait = %v; want 1 and the base", got, w)
	}
}

// A guard that is no guard.Loader tells nothing: the base, no pressure,
// no queue, and a Gate that reads no clock.
func TestGuardWithoutLoad(t *testing.T) {
	var g plain
	if got := exact(time.Second).Wait(g, bulkhead.ErrBulkheadFull); got != time.Second {
		t.Errorf("Wait = %v, want the base", got)
	}
	if p, q := pushback.Pressure(g), pushback.Queued(g); p != 0 || q != 0 {
		t.Errorf("Pressure = %v, Queued = %v; want 0 and 0", p, q)
	}
	if start := pushback.NewGate(g, clock.NewMock(), 1).Start(); !start.IsZero() {
		t.Errorf("Start = %v, want the zero Time: the guard makes nobody wait", start)
	}
}

// A priority bulkhead's load is read too: its calls in flight against its
// capacity (it holds no more, so its refusals ask for the base).
func TestPriorityBulkheadLoad(t *testing.T) {
	b := bulkhead.NewPriority(2)
	ctx := bulkhead.WithPriority(context.Background(), bulkhead.Critical)
	for range 2 {
		if _, err := b.Allow(ctx, guard.Call{Attempt: 1}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := b.Allow(ctx, guard.Call{Attempt: 1})
	if !errors.Is(err, bulkhead.ErrBulkheadFull) {
		t.Fatalf("a third call for 2 places: %v, want it shed", err)
	}
	if got := pushback.Pressure(b); got != 1 {
		t.Errorf("Pressure = %v, want 2/2", got)
	}
	if got := exact(time.Second).Wait(b, err); got != time.Second {
		t.Errorf("Wait = %v, want 1s × 2/2", got)
	}
}
