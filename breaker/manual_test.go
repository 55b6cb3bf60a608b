package breaker_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/guard"
)

// ForceOpen refuses every call, with an *OpenError of the forced-open
// state, for as long as it is not lifted: no open duration ends it.
func TestForceOpenIsolates(t *testing.T) {
	clk := newMock()
	var ch changes
	b := breaker.New(breaker.WithClock(clk), breaker.WithOpenDuration(time.Second), breaker.WithStateChange(ch.hook))
	before := admit(t, b)
	if err := b.ForceOpen(); err != nil {
		t.Fatal(err)
	}
	wantState(t, b, breaker.ForcedOpen)
	oe := refused(t, b)
	if oe.State != breaker.ForcedOpen || oe.Duration != 0 || oe.Error() != "breaker: circuit forced open" {
		t.Fatalf("refusal %+v (%q), want the forced-open state and no duration", oe, oe)
	}
	clk.Add(time.Hour)
	wantState(t, b, breaker.ForcedOpen)
	refused(t, b)
	b.Record(before, guard.Outcome{}) // admitted before: counts for nothing
	ch.want(t, "closed>forced-open")
	if c := b.Counts(); c.Forced != 1 || c.Transitions != 1 || c.Rejections != 2 || c.Ignored != 1 || c.Successes != 0 {
		t.Fatalf("Counts = %+v, want 1 forced transition, 2 rejections, the late record ignored", c)
	}
	if err := b.Run(context.Background(), func(context.Context) error { t.Fatal("fn ran"); return nil }); !errors.Is(err, breaker.ErrCircuitOpen) || !errors.Is(err, backoff.ErrRefused) {
		t.Fatalf("Run = %v, want a refusal matching ErrCircuitOpen", err)
	}
}

// ForceClosed admits every call and counts them, but never trips.
func TestForceClosedNeverTrips(t *testing.T) {
	clk := newMock()
	var ch changes
	b := tripped(t, clk, time.Minute, breaker.WithStateChange(ch.hook))
	if err := b.ForceClosed(); err != nil {
		t.Fatal(err)
	}
	wantState(t, b, breaker.ForcedClosed)
	calls(t, b, 100, errBoom)
	calls(t, b, 3, nil)
	wantState(t, b, breaker.ForcedClosed)
	ch.want(t, "closed>open", "open>forced-closed")
	// A done context is admitted too, as in the closed state.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Allow(ctx, guard.Call{Attempt: 1}); err != nil {
		t.Fatalf("forced closed, Allow with a done context = %v, want admitted", err)
	}
	if c := b.Counts(); c.Failures != 101 || c.Successes != 3 || c.Forced != 1 {
		t.Fatalf("Counts = %+v, want 101 failures, 3 successes, 1 forced transition", c)
	}
}

// Reset lifts a force and returns to the closed state, its trip rule's
// counts cleared, its open duration back to the first.
func TestResetClearsTheCounts(t *testing.T) {
	clk := newMock()
	var ch changes
	bo := &script{waits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}}
	b := breaker.New(breaker.WithClock(clk), breaker.WithFailureRate(0.5, 4, 10), breaker.WithOpenBackOff(bo), breaker.WithStateChange(ch.hook))
	calls(t, b, 3, errBoom)
	if err := b.Reset(); err != nil { // closed to closed: a fresh window
		t.Fatal(err)
	}
	calls(t, b, 1, errBoom)
	wantState(t, b, breaker.Closed) // 1 failure in the window, not 4
	calls(t, b, 3, errBoom)
	wantState(t, b, breaker.Open)
	if oe := refused(t, b); oe.Duration != time.Second {
		t.Fatalf("open for %v, want the first wait", oe.Duration)
	}
	clk.Add(time.Second)
	calls(t, b, 1, errBoom) // the probe fails: open for the second wait
	if oe := refused(t, b); oe.Duration != 2*time.Second {
		t.Fatalf("open for %v, want the second wait", oe.Duration)
	}
	b.ForceOpen()
	b.Reset()
	wantState(t, b, breaker.Closed)
	calls(t, b, 4, errBoom)
	if oe := refused(t, b); oe.Duration != time.Second {
		t.Fatalf("after Reset, open for %v, want the first wait again", oe.Duration)
	}
	ch.want(t, "closed>closed", "closed>open", "open>half-open", "half-open>open", "open>forced-open", "forced-open>closed", "closed>open")
	if c := b.Counts(); c.Forced != 3 || c.Failures != 12 || c.ConsecutiveFailures != 4 {
		t.Fatalf("Counts = %+v, want 3 forced transitions, the 12 failures kept, 4 in a row since the reset", c)
	}
}

// A probe in flight when the breaker is reset counts for nothing.
func TestResetIgnoresTheProbeInFlight(t *testing.T) {
	clk := newMock()
	b := dueForProbe(t, clk)
	probe := admit(t, b)
	wantState(t, b, breaker.HalfOpen)
	b.Reset()
	b.Record(probe, guard.Outcome{Err: errBoom})
	wantState(t, b, breaker.Closed)
	if c := b.Counts(); c.Ignored != 1 || c.ConsecutiveFailures != 0 {
		t.Fatalf("Counts = %+v, want the probe's record ignored", c)
	}
}

// The hook runs with no lock held: it may call the breaker, even force
// it again.
func TestForceHookMayCallTheBreaker(t *testing.T) {
	var b *breaker.Breaker
	var seen []breaker.State
	b = breaker.New(breaker.WithStateChange(func(_, to breaker.State) {
		seen = append(seen, b.State())
		if to == breaker.ForcedOpen {
			b.Reset()
		}
	}))
	b.ForceOpen()
	if len(seen) != 2 || seen[0] != breaker.ForcedOpen || seen[1] != breaker.Closed {
		t.Fatalf("the hook saw %v, want [forced-open closed]", seen)
	}
	wantState(t, b, breaker.Closed)
}

// A breaker that cannot be used is not forced: each method returns its
// configuration error, and the breaker is left as it was.
func TestForceUnusableBreaker(t *testing.T) {
	bad := breaker.New(breaker.WithConsecutiveFailures(0))
	var zero breaker.Breaker
	var none *breaker.Breaker
	for _, b := range []*breaker.Breaker{bad, &zero, none} {
		for _, force := range []func() error{b.ForceOpen, b.ForceClosed, b.Reset} {
			if err := force(); !errors.Is(err, backoff.ErrInvalidConfiguration) || err != b.Validate() {
				t.Fatalf("forcing = %v, want the configuration error %v", err, b.Validate())
			}
		}
		if b != nil {
			wantUnusable(t, b, b.Validate())
		}
	}
}

// Under -race: forcing while calls go through leaves the breaker in the
// state of the last force, and every call admitted or refused.
func TestForceConcurrently(t *testing.T) {
	b := breaker.New(breaker.WithFailureRate(0.5, 10, 100), breaker.WithSlowCalls(time.Second, 0.5))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var err error
				if (g+i)%2 == 0 {
					err = errBoom
				}
				call(b, err)
			}
		})
	}
	for i := range 300 {
		switch i % 3 {
		case 0:
			b.ForceOpen()
		case 1:
			b.ForceClosed()
		case 2:
			b.Reset()
		}
	}
	b.ForceClosed()
	close(stop)
	wg.Wait()
	wantState(t, b, breaker.ForcedClosed)
	if c := b.Counts(); c.Forced != 301 || c.Transitions < c.Forced {
		t.Fatalf("Counts = %+v, want 301 forced transitions among the transitions", c)
	}
}
