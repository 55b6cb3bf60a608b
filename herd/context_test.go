package herd_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/herd"
)

// cancelling is a BackOff that cancels a context the first time it is asked
// for a wait, and counts the waits it was asked for.
type cancelling struct {
	backoff.BackOff
	cancel func()
	asked  *int
}

func (p cancelling) NextBackOff() time.Duration {
	*p.asked++
	p.cancel()
	return p.BackOff.NextBackOff()
}

// A simulation cancelled while it runs stops within a few events: a fleet
// whose full run would make hundreds of thousands of calls makes little
// more than its first wave, and the Result says why it stopped.
func TestSimulateContextStopsARun(t *testing.T) {
	t.Parallel()
	const clients = 2_000
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stop := errors.New("interrupted")
	asked := 0
	noJitter := herd.NoJitter(herd.DefaultBase, herd.DefaultCap)
	cfg := herd.Config{Scenario: herd.OCC, Clients: clients, Seed: 1, NewBackOff: func() backoff.BackOff {
		return cancelling{BackOff: noJitter(), cancel: func() { cancel(stop) }, asked: &asked}
	}}
	r := herd.SimulateContext(ctx, cfg)
	if !errors.Is(r.Err, stop) {
		t.Fatalf("Err = %v, want the context's cause", r.Err)
	}
	// The cancellation came with the first failed write, once the first
	// wave, a write per client, had reached the server; the run goes on
	// for at most one look's worth of events (1024) after it. To the end,
	// the run would make hundreds of calls per client.
	if asked > 1024 || r.Calls > clients+1024 || r.Calls == 0 {
		t.Errorf("after the cancellation: %d waits asked for, %d calls; want at most 1024 events more", asked, r.Calls)
	}
	if r.Succeeded+r.GaveUp >= clients || r.Clients != clients {
		t.Errorf("succeeded %d, gave up %d of %d: the run went to the end", r.Succeeded, r.GaveUp, r.Clients)
	}
	if len(r.Load) == 0 || r.PeakLoad == 0 {
		t.Errorf("a stopped Result keeps what it measured: load %v, peak %d", r.Load, r.PeakLoad)
	}
}

// Cancelled while the BackOffs are built, a simulation stops building
// them; cancelled before, it builds none.
func TestSimulateContextStopsTheSetUp(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	built := 0
	full := herd.FullJitter(herd.DefaultBase, herd.DefaultCap)
	cfg := herd.Config{Scenario: herd.Restart, Clients: 20_000, NewBackOff: func() backoff.BackOff {
		if built++; built == 10 {
			cancel()
		}
		return full()
	}}
	r := herd.SimulateContext(ctx, cfg)
	if !errors.Is(r.Err, context.Canceled) || r.Calls != 0 {
		t.Fatalf("Err %v, calls %d; want context.Canceled before any call", r.Err, r.Calls)
	}
	if built > 1024 {
		t.Errorf("%d BackOffs built after a cancellation at the 10th", built)
	}

	built = 0
	r = herd.SimulateContext(ctx, cfg) // already cancelled
	if !errors.Is(r.Err, context.Canceled) || built != 0 || r.Clients != cfg.Clients || r.Window != herd.DefaultWindow {
		t.Fatalf("an already cancelled context: %+v, %d BackOffs built", r, built)
	}

	// A Config Validate rejects is reported as such, whatever the context.
	cfg.Clients = 0
	if r := herd.SimulateContext(ctx, cfg); !isInvalidConfig(r.Err) {
		t.Fatalf("an invalid Config: %v", r.Err)
	}
}

// A context that is never done changes nothing: SimulateContext gives what
// Simulate gives.
func TestSimulateContextMatchesSimulate(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, st := range strategies() {
		cfg := herd.Config{Scenario: herd.OCC, Clients: 100, NewBackOff: st.NewBackOff, Seed: 3}
		a, b := herd.Simulate(cfg), herd.SimulateContext(ctx, cfg)
		if a.Err != nil || b.Err != nil || a.Calls != b.Calls || a.Completion != b.Completion || a.PeakLoad != b.PeakLoad {
			t.Errorf("%s: Simulate %d calls, %v; SimulateContext %d calls, %v (%v, %v)",
				st.Name, a.Calls, a.Completion, b.Calls, b.Completion, a.Err, b.Err)
		}
	}
}

// An Outage run stops too: a guard that cancels the context at its 100th
// Allow ends the run within one look's worth of events, with the
// context's cause, and so does the set-up of the guards.
func TestSimulateContextStopsAnOutage(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	allows := 0
	cfg := tinyOutage(herd.Strategy{NewBackOff: outageStrategy(t, "retry").NewBackOff,
		NewGuards: func(clock.Clock, func() float64) []guard.Guard {
			return []guard.Guard{guardFunc(func() {
				if allows++; allows == 100 {
					cancel()
				}
			})}
		}}, 1)
	r := herd.SimulateContext(ctx, cfg)
	if !errors.Is(r.Err, context.Canceled) || r.Calls < 100 || r.Calls > 100+1024 {
		t.Fatalf("Err %v after %d calls; want context.Canceled within 1024 events of the 100th call", r.Err, r.Calls)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	built := 0
	cfg.Clients = 5000
	cfg.NewGuards = func(clock.Clock, func() float64) []guard.Guard {
		if built++; built == 10 {
			cancel()
		}
		return nil
	}
	if r := herd.SimulateContext(ctx, cfg); !errors.Is(r.Err, context.Canceled) || r.Calls != 0 || built > 1024 {
		t.Fatalf("cancelled while the guards are built: Err %v, %d calls, %d clients' guards built", r.Err, r.Calls, built)
	}
}
