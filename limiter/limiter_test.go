package limiter_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/policy"
)

// perRound makes every round of n calls a sample window.
func perRound(n int) limiter.Option { return limiter.WithWindow(time.Nanosecond, n) }

// noProbe turns the probes of the no-load latency off, for the tests of
// how the rules move the limit window by window.
var noProbe = limiter.WithProbeInterval(0)

func TestAdmitsUpToTheLimit(t *testing.T) {
	for _, n := range []int{1, 2, 20} {
		l := limiter.New(limiter.WithInitialLimit(n))
		ctx := context.Background()
		ps := admit(t, l, ctx, n)
		_, err := l.Allow(ctx, guard.Call{Attempt: 1})
		if !errors.Is(err, limiter.ErrLimitExceeded) || errors.Is(err, backoff.ErrInvalidConfiguration) {
			t.Fatalf("limit %d: call %d: %v, want ErrLimitExceeded", n, n+1, err)
		}
		if s := l.Stats(); s.Limit != n || s.InFlight != n || s.RefusedStandard != 1 || s.Refused() != 1 {
			t.Fatalf("limit %d: Stats() = %+v", n, s)
		}
		l.Record(ps[0], guard.Outcome{Err: errCall, Abandoned: true})
		ps[0] = admit(t, l, ctx, 1)[0] // the freed place is given
		recordAll(l, ps, guard.Outcome{Abandoned: true})
		if s := l.Stats(); s.InFlight != 0 {
			t.Fatalf("limit %d: %d in flight after every call ended", n, s.InFlight)
		}
	}
}

// Run refuses with an error that stops a retry driver, frees the place
// of a call that panics, and passes fn's error through.
func TestRun(t *testing.T) {
	l := limiter.New(limiter.WithInitialLimit(1))
	ctx := context.Background()
	if err := l.Run(ctx, func(context.Context) error { return errCall }); err != errCall {
		t.Fatalf("Run returned %v, want fn's error", err)
	}
	release := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- l.Run(ctx, func(context.Context) error { <-release; return nil })
	}()
	for l.Stats().InFlight != 1 {
		runtime.Gosched()
	}
	called := false
	err := l.Run(ctx, func(context.Context) error { called = true; return nil })
	if called || !errors.Is(err, backoff.ErrRefused) || !errors.Is(err, limiter.ErrLimitExceeded) {
		t.Fatalf("Run over the limit: called %v, %v; want a refusal matching ErrRefused and ErrLimitExceeded", called, err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if recover() != "boom" {
				t.Error("the panic did not go on")
			}
		}()
		_ = l.Run(ctx, func(context.Context) error { panic("boom") })
	}()
	if s := l.Stats(); s.InFlight != 0 {
		t.Fatalf("a call that panicked still holds its place: %+v", s)
	}
	if err := l.Run(ctx, nil); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Fatalf("Run(nil): %v", err)
	}
}

func TestRecordWithoutACallInFlightPanics(t *testing.T) {
	l := limiter.New()
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("no panic")
		}
	}()
	l.Record(guard.Permit{}, guard.Outcome{})
}

// While nothing queues the gradient rule grows the limit by its square
// root each window in which the limit was used, and leaves an unused
// limit alone.
func TestGradientGrowsWhileNothingQueues(t *testing.T) {
	clk := newManualClock()
	l := limiter.New(limiter.WithClock(clk), noProbe, perRound(16), limiter.WithInitialLimit(16))
	want := []int{20, 24, 29} // 16+4, 20+4.47, 24.47+4.95
	for i, w := range want {
		if s := round(t, l, clk, l.Stats().Limit, 10*time.Millisecond, nil); s.Limit != w {
			t.Fatalf("window %d: limit %d, want %d (%+v)", i+1, s.Limit, w, s)
		}
	}
	s := l.Stats()
	if s.Latency != 10*time.Millisecond || s.NoLoadLatency != 10*time.Millisecond {
		t.Fatalf("latencies %v and %v, want 10ms", s.Latency, s.NoLoadLatency)
	}
	for range 5 {
		round(t, l, clk, 5, 10*time.Millisecond, nil) // a fifth of the limit used
	}
	if got := l.Stats().Limit; got != 29 {
		t.Fatalf("an unused limit moved from 29 to %d", got)
	}
}

// Once the latency rises above the no-load latency the limit shrinks, a
// fifth of the way each window, and stops at the floor.
func TestGradientShrinksWhenTheLatencyRises(t *testing.T) {
	clk := newManualClock()
	l := limiter.New(limiter.WithClock(clk), noProbe, perRound(5), limiter.WithInitialLimit(40), limiter.WithFloor(5))
	round(t, l, clk, 5, 10*time.Millisecond, nil)
	prev := l.Stats().Limit
	for i := range 80 {
		s := round(t, l, clk, 5, 40*time.Millisecond, nil)
		if s.Limit > prev {
			t.Fatalf("window %d: the limit grew from %d to %d at 4 times the no-load latency", i+1, prev, s.Limit)
		}
		prev = s.Limit
	}
	if s := l.Stats(); s.Limit != 5 || s.NoLoadLatency != 10*time.Millisecond || s.Latency != 40*time.Millisecond {
		t.Fatalf("after 80 slow windows: %+v; want the floor, 5", s)
	}
}

// Vegas grows the limit while fewer than alpha calls queue, keeps it
// while between alpha and beta do, and shrinks it when more do.
func TestVegasRule(t *testing.T) {
	clk := newManualClock()
	l := limiter.New(limiter.WithClock(clk), noProbe, perRound(10), limiter.WithInitialLimit(10), limiter.WithVegas(2, 4))
	if s := round(t, l, clk, 10, 10*time.Millisecond, nil); s.Limit != 13 { // 10 + √10
		t.Fatalf("nothing queued: limit %d, want 13", s.Limit)
	}
	// 13.16 × (1 − 10/13) = 3 queued: between 2 and 4 × log10(13.16).
	if s := round(t, l, clk, 10, 13*time.Millisecond, nil); s.Limit != 13 {
		t.Fatalf("3 queued: limit %d, want 13", s.Limit)
	}
	// 13.16 × (1 − 10/30) = 8.8 queued, above 4.5: to 13.16 × 4.5 / 8.8.
	if s := round(t, l, clk, 10, 30*time.Millisecond, nil); s.Limit != 6 {
		t.Fatalf("8.8 queued: limit %d, want 6", s.Limit)
	}
}

// A window in which a call failed multiplies the limit by the decrease,
// whatever the latency, down to the floor.
func TestFailuresShrinkTheLimit(t *testing.T) {
	clk := newManualClock()
	l := limiter.New(limiter.WithClock(clk), noProbe, perRound(1), limiter.WithInitialLimit(20), limiter.WithFloor(3))
	want := []int{18, 16, 14, 13, 11}
	for i, w := range want {
		if s := round(t, l, clk, 1, time.Millisecond, errCall); s.Limit != w {
			t.Fatalf("failure %d: limit %d, want %d", i+1, s.Limit, w)
		}
	}
	l = limiter.New(limiter.WithClock(clk), noProbe, perRound(1), limiter.WithInitialLimit(20), limiter.WithDecrease(0.5), limiter.WithFloor(3))
	for _, w := range []int{10, 5, 3, 3} {
		if s := round(t, l, clk, 1, time.Millisecond, errCall); s.Limit != w {
			t.Fatalf("a decrease of 0.5: limit %d, want %d", s.Limit, w)
		}
	}
}

// WithIsFailure's false counts the call as a measure of the latency; a
// classifier that panics counts a failure, and the call's place is freed.
func TestIsFailure(t *testing.T) {
	clk := newManualClock()
	notFound := errors.New("not found")
	l := limiter.New(limiter.WithClock(clk), noProbe, perRound(1), limiter.WithInitialLimit(16),
		limiter.WithIsFailure(func(err error) bool { return err != notFound }))
	if s := round(t, l, clk, 16, 10*time.Millisecond, notFound); s.Limit != 20 || s.Latency != 10*time.Millisecond {
		t.Fatalf("an error that is no failure: %+v, want the limit grown to 20", s)
	}
	if s := round(t, l, clk, 1, 10*time.Millisecond, errCall); s.Limit != 18 {
		t.Fatalf("a failure: limit %d, want 18", s.Limit)
	}

	l = limiter.New(limiter.WithClock(clk), noProbe, perRound(1), limiter.WithInitialLimit(10),
		limiter.WithIsFailure(func(error) bool { panic("classifier") }))
	p := admit(t, l, context.Background(), 1)[0]
	clk.Add(time.Millisecond)
	func() {
		defer func() {
			if recover() != "classifier" {
				t.Error("the classifier's panic did not go on")
			}
		}()
		l.Record(p, guard.Outcome{Err: errCall})
	}()
	if s := l.Stats(); s.InFlight != 0 || s.Limit != 9 {
		t.Fatalf("after the classifier panicked: %+v; want nothing in flight and the limit shrunk to 9", s)
	}
}

// A call its caller abandoned, and one a guard inside the Limiter
// refused, say nothing about the dependency: neither ends a window.
func TestAbandonedAndRefusedCountNeitherWay(t *testing.T) {
	clk := newManualClock()
	l := limiter.New(limiter.WithClock(clk), noProbe, perRound(1), limiter.WithInitialLimit(10))
	refusal := fmt.Errorf("inner guard: %w", backoff.ErrRefused)
	for _, o := range []guard.Outcome{{Abandoned: true}, {Err: errCall, Abandoned: true}, {Err: refusal}} {
		for range 3 {
			ps := admit(t, l, context.Background(), 10)
			clk.Add(time.Second)
			recordAll(l, ps, o)
		}
		if s := l.Stats(); s.Limit != 10 || s.Latency != 0 || s.InFlight != 0 {
			t.Fatalf("outcome %+v: %+v; want the limit untouched and nothing measured", o, s)
		}
	}
}

// The no-load latency is remembered for the baseline, and then forgotten:
// a dependency that became slower for good reads as a queue only until
// then.
func TestBaselineForgets(t *testing.T) {
	clk := newManualClock()
	l := limiter.New(limiter.WithClock(clk), noProbe, limiter.WithWindow(10*time.Millisecond, 1), limiter.WithBaseline(time.Second),
		limiter.WithInitialLimit(20), limiter.WithFloor(2))
	round(t, l, clk, 20, 10*time.Millisecond, nil)
	for range 20 { // 0.6 s
		round(t, l, clk, 2, 30*time.Millisecond, nil)
	}
	if s := l.Stats(); s.NoLoadLatency != 10*time.Millisecond || s.Limit > 10 {
		t.Fatalf("within the baseline: %+v; want the no-load latency of 10ms, and a limit shrunk", s)
	}
	for range 100 { // 3 s more
		round(t, l, clk, 2, 30*time.Millisecond, nil)
	}
	if s := l.Stats(); s.NoLoadLatency < 25*time.Millisecond {
		t.Fatalf("after two baselines of 30ms: %+v", s)
	}
	for range 20 { // the limit grows again
		round(t, l, clk, l.Stats().Limit, 30*time.Millisecond, nil)
	}
	if got := l.Stats().Limit; got < 20 {
		t.Fatalf("the limit stayed at %d once the new latency was the no-load one", got)
	}
}

func TestFloorAndCeiling(t *testing.T) {
	clk := newManualClock()
	l := limiter.New(limiter.WithClock(clk), noProbe, perRound(1), limiter.WithFloor(4), limiter.WithCeiling(30))
	for range 20 {
		round(t, l, clk, l.Stats().Limit, time.Millisecond, nil)
	}
	if got := l.Stats().Limit; got != 30 {
		t.Fatalf("limit %d, want the ceiling, 30", got)
	}
	for range 40 {
		round(t, l, clk, 1, time.Millisecond, errCall)
	}
	if got := l.Stats().Limit; got != 4 {
		t.Fatalf("limit %d, want the floor, 4", got)
	}
	// A floor above the default initial limit starts there.
	if got := limiter.New(limiter.WithFloor(50)).Stats().Limit; got != 50 {
		t.Fatalf("WithFloor(50) starts at %d", got)
	}
	if got := limiter.New(limiter.WithCeiling(5)).Stats().Limit; got != 5 {
		t.Fatalf("WithCeiling(5) starts at %d", got)
	}
}

// A caller whose context is done is turned away with the context's error,
// not the Limiter's refusal, and counted as Canceled (a nil context:
// TestNilContext).
func TestContextDone(t *testing.T) {
	l := limiter.New()
	cause := errors.New("the user left")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	_, err := l.Allow(ctx, guard.Call{Attempt: 1})
	if !errors.Is(err, context.Canceled) || !errors.Is(err, cause) || errors.Is(err, limiter.ErrLimitExceeded) {
		t.Fatalf("a done context: %v", err)
	}
	if s := l.Stats(); s.Canceled != 1 || s.InFlight != 0 || s.Refused() != 0 {
		t.Fatalf("Stats() = %+v", s)
	}
}

// Concurrent callers never take more places than the limit, and every
// place comes back.
func TestConcurrentCallsStayWithinTheLimit(t *testing.T) {
	const limit = 8
	for _, opts := range [][]limiter.Option{nil, {limiter.WithQueue(64)}} {
		l := limiter.New(append(opts, limiter.WithFloor(limit), limiter.WithCeiling(limit))...)
		var inFlight, peak, refused atomic.Int64
		var wg sync.WaitGroup
		for range 32 {
			wg.Go(func() {
				for range 200 {
					err := l.Run(context.Background(), func(context.Context) error {
						n := inFlight.Add(1)
						for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
						}
						runtime.Gosched()
						inFlight.Add(-1)
						return nil
					})
					if err != nil {
						refused.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if p := peak.Load(); p > limit || p < 1 {
			t.Errorf("%d calls in flight at once, limit %d", p, limit)
		}
		if s := l.Stats(); s.InFlight != 0 || s.Queued != 0 || s.Refused() != uint64(refused.Load()) {
			t.Errorf("after the calls: %+v, %d refusals seen", s, refused.Load())
		}
	}
}

// The admitted call's success path allocates nothing, priorities read or
// not.
func TestAdmittedSuccessAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	for _, l := range []*limiter.Limiter{
		limiter.New(),
		limiter.New(limiter.WithVegas(3, 6)),
		limiter.New(limiter.WithPriorityThresholds(0.5, 0.8), limiter.WithQueue(10)),
	} {
		if allocs := guardtest.AdmittedAllocs(t, 10000, l, ctx); allocs != 0 {
			t.Errorf("%v allocations per admitted success", allocs)
		}
	}
}

// An admitted call reads the clock once in Allow and once in Record; a
// call that says nothing of the latency, none in Record.
func TestClockReadings(t *testing.T) {
	clk := newManualClock()
	l := limiter.New(limiter.WithClock(clk))
	base := clk.reads.Load() // New's
	p := admit(t, l, context.Background(), 1)[0]
	l.Record(p, guard.Outcome{})
	if n := clk.reads.Load() - base; n != 2 {
		t.Fatalf("%d readings for a success, want 2", n)
	}
	p = admit(t, l, context.Background(), 1)[0]
	l.Record(p, guard.Outcome{Abandoned: true})
	if n := clk.reads.Load() - base; n != 3 {
		t.Fatalf("%d readings after an abandoned call, want 3", n)
	}
}

// With a policy, a refusal is the Cause of the *backoff.Error and stops
// the retry stage around it.
func TestInAPolicy(t *testing.T) {
	l := limiter.New(limiter.WithInitialLimit(1))
	p := policy.New(policy.Retry(backoff.WithMaxTries(3)), policy.Guard(l))
	ctx := context.Background()
	held := admit(t, l, ctx, 1)
	calls := 0
	err := p.DoErr(ctx, func(context.Context) error { calls++; return nil })
	var be *backoff.Error
	if !errors.As(err, &be) || !errors.Is(be.Cause, limiter.ErrLimitExceeded) || calls != 0 {
		t.Fatalf("a call over the limit through a policy: %v, %d calls", err, calls)
	}
	recordAll(l, held, guard.Outcome{})
	if err := p.DoErr(ctx, func(context.Context) error { calls++; return nil }); err != nil || calls != 1 {
		t.Fatalf("a call under the limit: %v, %d calls", err, calls)
	}
}
