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

func TestStateString(t *testing.T) {
	for _, c := range []struct {
		s    breaker.State
		want string
	}{
		{breaker.Closed, "closed"},
		{breaker.Open, "open"},
		{breaker.HalfOpen, "half-open"},
		{breaker.ForcedOpen, "forced-open"},
		{breaker.ForcedClosed, "forced-closed"},
		{breaker.State(9), "State(9)"},
	} {
		if got := c.s.String(); got != c.want {
			t.Errorf("State(%d).String() = %q, want %q", c.s, got, c.want)
		}
	}
}

func TestTripsOnConsecutiveFailures(t *testing.T) {
	clk := newMock()
	b := breaker.New(breaker.WithClock(clk), breaker.WithConsecutiveFailures(3), breaker.WithOpenDuration(10*time.Second))
	calls(t, b, 2, errBoom)
	calls(t, b, 1, nil) // a success ends the run
	calls(t, b, 2, errBoom)
	wantState(t, b, breaker.Closed)
	if got := b.Counts().ConsecutiveFailures; got != 2 {
		t.Fatalf("ConsecutiveFailures = %d, want 2", got)
	}
	calls(t, b, 1, errBoom)
	wantState(t, b, breaker.Open)
	oe := refused(t, b)
	if oe.State != breaker.Open || oe.RetryAfter() != 10*time.Second {
		t.Fatalf("refusal %+v, want Open for 10s", *oe)
	}
}

func TestOpenLastsItsDuration(t *testing.T) {
	clk := newMock()
	b := tripped(t, clk, 10*time.Second)
	clk.Add(10*time.Second - time.Millisecond)
	if oe := refused(t, b); oe.Duration != time.Millisecond {
		t.Fatalf("RetryAfter %v with 1ms to go", oe.Duration)
	}
	wantState(t, b, breaker.Open)
	clk.Add(time.Millisecond)
	admit(t, b)
	wantState(t, b, breaker.HalfOpen)
}

func TestZeroOpenDurationProbesAtOnce(t *testing.T) {
	b := breaker.New(breaker.WithClock(newMock()), breaker.WithConsecutiveFailures(1), breaker.WithOpenDuration(0))
	calls(t, b, 1, errBoom)
	if got := b.Counts().Transitions; got != 1 {
		t.Fatalf("Transitions = %d after the trip, want 1", got)
	}
	calls(t, b, 1, nil) // the probe
	wantState(t, b, breaker.Closed)
}

func TestHalfOpenClosesAfterSuccesses(t *testing.T) {
	clk := newMock()
	b := dueForProbe(t, clk, breaker.WithHalfOpen(3, 2))
	p1, p2, p3 := admit(t, b), admit(t, b), admit(t, b)
	if oe := refused(t, b); oe.State != breaker.HalfOpen || oe.Duration != 0 {
		t.Fatalf("fourth call refused with %+v, want HalfOpen, 0", *oe)
	}
	b.Record(p1, guard.Outcome{})
	wantState(t, b, breaker.HalfOpen)
	b.Record(p2, guard.Outcome{})
	wantState(t, b, breaker.Closed)
	b.Record(p3, guard.Outcome{Err: errBoom}) // admitted before the close
	wantState(t, b, breaker.Closed)
	c := b.Counts()
	if c.Ignored != 1 || c.Successes != 2 || c.Failures != 1 || c.Rejections != 1 || c.ConsecutiveFailures != 0 {
		t.Fatalf("counts %+v", c)
	}
}

func TestHalfOpenFailureReopens(t *testing.T) {
	clk := newMock()
	b := dueForProbe(t, clk, breaker.WithHalfOpen(2, 2))
	p1, p2 := admit(t, b), admit(t, b)
	b.Record(p1, guard.Outcome{Err: errBoom})
	wantState(t, b, breaker.Open)
	b.Record(p2, guard.Outcome{}) // a probe of the half-open state that ended
	wantState(t, b, breaker.Open)
	if oe := refused(t, b); oe.Duration != time.Second {
		t.Fatalf("reopened for %v, want 1s", oe.Duration)
	}
	if c := b.Counts(); c.ConsecutiveFailures != 2 || c.Ignored != 1 {
		t.Fatalf("counts %+v, want 2 consecutive failures and 1 ignored", c)
	}
}

func TestNeutralProbeGivesItsPlaceBack(t *testing.T) {
	clk := newMock()
	b := dueForProbe(t, clk)
	p := admit(t, b)
	refused(t, b)
	b.Record(p, guard.Outcome{Err: errBoom, Abandoned: true})
	wantState(t, b, breaker.HalfOpen)
	p = admit(t, b)
	b.Record(p, guard.Outcome{})
	wantState(t, b, breaker.Closed)
	if c := b.Counts(); c.Neutral != 1 || c.Failures != 1 || c.Successes != 1 {
		t.Fatalf("counts %+v, want 1 neutral, 1 failure (the trip), 1 success", c)
	}
}

func TestStaleRecordIsIgnored(t *testing.T) {
	clk := newMock()
	b := breaker.New(breaker.WithClock(clk), breaker.WithConsecutiveFailures(1), breaker.WithOpenDuration(time.Second))
	early := admit(t, b)
	calls(t, b, 1, errBoom)
	clk.Add(time.Second)
	probe := admit(t, b)
	b.Record(early, guard.Outcome{}) // a success of the closed state proves nothing now
	wantState(t, b, breaker.HalfOpen)
	b.Record(guard.Permit{}, guard.Outcome{}) // a Permit Allow never issued
	b.Record(probe, guard.Outcome{})
	wantState(t, b, breaker.Closed)
	b.Record(probe, guard.Outcome{Err: errBoom}) // recorded twice: the second is stale
	wantState(t, b, breaker.Closed)
	if c := b.Counts(); c.Ignored != 3 || c.Successes != 1 || c.Failures != 1 {
		t.Fatalf("counts %+v, want 3 ignored, 1 success, 1 failure", c)
	}
}

func TestStateChangeHook(t *testing.T) {
	clk := newMock()
	var ch changes
	b := dueForProbe(t, clk, breaker.WithStateChange(ch.hook))
	calls(t, b, 1, errBoom)
	clk.Add(time.Second)
	calls(t, b, 1, nil)
	ch.want(t, "closed>open", "open>half-open", "half-open>open", "open>half-open", "half-open>closed")
	if got := b.Counts().Transitions; got != 5 {
		t.Fatalf("Transitions = %d, want 5", got)
	}
}

func TestStateTurnsHalfOpen(t *testing.T) {
	clk := newMock()
	var ch changes
	b := dueForProbe(t, clk, breaker.WithStateChange(ch.hook))
	wantState(t, b, breaker.HalfOpen)
	ch.want(t, "closed>open", "open>half-open")
}

// The hook runs with no lock held: it may call the breaker, even to make
// another change of state.
func TestHookMayCallTheBreaker(t *testing.T) {
	clk := newMock()
	var b *breaker.Breaker
	var seen []breaker.State
	b = breaker.New(breaker.WithClock(clk), breaker.WithConsecutiveFailures(1), breaker.WithOpenDuration(0),
		breaker.WithStateChange(func(from, to breaker.State) {
			st := b.State()
			_ = b.Counts()
			seen = append(seen, st)
			if to == breaker.Open {
				call(b, nil) // turns it half-open, then closes it
			}
		}))
	calls(t, b, 1, errBoom)
	wantState(t, b, breaker.Closed)
	if len(seen) != 3 {
		t.Fatalf("hook called %d times, want 3", len(seen))
	}
}

func TestHookPanicGoesOnAfterTheChange(t *testing.T) {
	b := breaker.New(breaker.WithClock(newMock()), breaker.WithConsecutiveFailures(1),
		breaker.WithStateChange(func(from, to breaker.State) { panic("hook") }))
	func() {
		defer func() {
			if r := recover(); r != "hook" {
				t.Fatalf("recovered %v, want the hook's panic", r)
			}
		}()
		call(b, errBoom)
		t.Fatal("no panic")
	}()
	refused(t, b)
}

// script is a BackOff that returns its waits in turn, then Stop.
type script struct {
	waits  []time.Duration
	i      int
	resets int
	panics bool
}

func (s *script) NextBackOff() time.Duration {
	if s.panics {
		panic("backoff")
	}
	if s.i >= len(s.waits) {
		return backoff.Stop
	}
	s.i++
	return s.waits[s.i-1]
}

func (s *script) Reset() { s.i = 0; s.resets++ }

func TestOpenBackOffGrowsAndResets(t *testing.T) {
	clk := newMock()
	bo := &script{waits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}}
	b := tripped(t, clk, time.Minute, breaker.WithOpenBackOff(bo))
	for _, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second} {
		if oe := refused(t, b); oe.Duration != want {
			t.Fatalf("open for %v, want %v", oe.Duration, want)
		}
		clk.Add(want)
		calls(t, b, 1, errBoom) // the probe fails
	}
	clk.Add(4 * time.Second)
	calls(t, b, 1, nil)
	wantState(t, b, breaker.Closed)
	calls(t, b, 1, errBoom)
	if oe := refused(t, b); oe.Duration != time.Second {
		t.Fatalf("open for %v after closing, want the first wait again", oe.Duration)
	}
	if bo.resets != 2 { // New, and the close
		t.Fatalf("Reset called %d times, want 2", bo.resets)
	}
}

func TestOpenBackOffStopFirst(t *testing.T) {
	b := tripped(t, newMock(), 7*time.Second, breaker.WithOpenBackOff(&script{}))
	if oe := refused(t, b); oe.Duration != 7*time.Second {
		t.Fatalf("open for %v, want WithOpenDuration's 7s", oe.Duration)
	}
}

func TestOpenBackOffPanicLeavesTheBreaker(t *testing.T) {
	bo := &script{waits: []time.Duration{time.Second}, panics: true}
	b := breaker.New(breaker.WithClock(newMock()), breaker.WithConsecutiveFailures(1), breaker.WithOpenBackOff(bo))
	func() {
		defer func() {
			if r := recover(); r != "backoff" {
				t.Fatalf("recovered %v, want the BackOff's panic", r)
			}
		}()
		call(b, errBoom)
	}()
	wantState(t, b, breaker.Closed)
	bo.panics = false
	calls(t, b, 1, errBoom) // the lock was released
	wantState(t, b, breaker.Open)
}

func TestOpenBackOffExponential(t *testing.T) {
	clk := newMock()
	exp := backoff.NewExponentialBackOff(backoff.WithInitialInterval(time.Second),
		backoff.WithMultiplier(2), backoff.WithMaxInterval(3*time.Second), backoff.WithRandomizationFactor(0))
	b := tripped(t, clk, time.Minute, breaker.WithOpenBackOff(exp))
	for _, want := range []time.Duration{time.Second, 2 * time.Second, 3 * time.Second} {
		oe := refused(t, b)
		if oe.Duration != want {
			t.Fatalf("open for %v, want %v", oe.Duration, want)
		}
		clk.Add(want)
		calls(t, b, 1, errBoom)
	}
	if got := exp.NextBackOff(); got != time.Second {
		t.Fatalf("the ExponentialBackOff given was used (next %v): the breaker must use a copy", got)
	}
}

// errors.Is sees a refusal through wrapping.
func TestRefusalWrapped(t *testing.T) {
	b := tripped(t, newMock(), time.Second)
	_, err := b.Allow(t.Context(), guard.Call{Attempt: 1})
	if !errors.Is(errors.Join(errBoom, err), breaker.ErrCircuitOpen) {
		t.Fatal("a joined refusal does not match ErrCircuitOpen")
	}
}

// sony/gobreaker#53: N callers at once in the half-open state get exactly k
// probes admitted, and the rest fail fast.
func TestHalfOpenAdmitsExactlyKProbes(t *testing.T) {
	const n, k = 64, 5
	clk := newMock()
	b := tripped(t, clk, time.Second, breaker.WithHalfOpen(k, k))
	for round := range 20 {
		clk.Add(time.Second)
		if round%2 == 0 {
			wantState(t, b, breaker.HalfOpen) // half-open before the callers come
		} // else the callers race to make the change themselves
		before := b.Counts()
		permits, refusals := race(b, n)
		if len(permits) != k || refusals != n-k {
			t.Fatalf("round %d: %d admitted and %d refused, want %d and %d", round, len(permits), refusals, k, n-k)
		}
		after := b.Counts()
		if got := after.Transitions - before.Transitions; round%2 == 1 && got != 1 {
			t.Fatalf("round %d: %d changes of state for one half-opening", round, got)
		}
		if got := after.Rejections - before.Rejections; got != n-k {
			t.Fatalf("round %d: %d rejections counted, want %d", round, got, n-k)
		}
		// All but one succeed, and the last one fails: it reopens.
		for _, p := range permits[1:] {
			b.Record(p, guard.Outcome{})
		}
		wantState(t, b, breaker.HalfOpen)
		b.Record(permits[0], guard.Outcome{Err: errBoom})
		wantState(t, b, breaker.Open)
	}
}

// race has n goroutines ask b to admit a call at the same moment, and
// returns the permits issued and the number of refusals.
func race(b *breaker.Breaker, n int) ([]guard.Permit, int) {
	var (
		mu       sync.Mutex
		permits  []guard.Permit
		refusals int
		wg       sync.WaitGroup
	)
	start := make(chan struct{})
	for range n {
		wg.Go(func() {
			<-start
			p, err := b.Allow(context.Background(), guard.Call{Attempt: 1})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if errors.Is(err, breaker.ErrCircuitOpen) {
					refusals++
				}
				return
			}
			permits = append(permits, p)
		})
	}
	close(start)
	wg.Wait()
	return permits, refusals
}

// Concurrent callers in every state, under -race: the counts add up.
func TestConcurrentCallsAddUp(t *testing.T) {
	const goroutines, each = 8, 500
	clk := newMock()
	b := breaker.New(breaker.WithClock(clk), breaker.WithFailureRate(0.5, 10, 20), breaker.WithOpenDuration(0))
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				var err error
				if (g+i)%3 == 0 {
					err = errBoom
				}
				call(b, err)
			}
		})
	}
	wg.Wait()
	c := b.Counts()
	if got := c.Successes + c.Failures + c.Ignored + c.Rejections; got != goroutines*each {
		t.Fatalf("counts %+v add up to %d calls, want %d", c, got, goroutines*each)
	}
}

// A probe's Permit recorded twice counts once: the half-open breaker takes
// no more records than the probes it admitted, so one success recorded
// twice does not close a breaker that wants two.
func TestHalfOpenPermitRecordedTwice(t *testing.T) {
	clk := newMock()
	b := breaker.New(breaker.WithClock(clk), breaker.WithConsecutiveFailures(1), breaker.WithOpenDuration(time.Second), breaker.WithHalfOpen(2, 2))
	call(b, errBoom)
	clk.Add(time.Second)
	p, err := b.Allow(context.Background(), guard.Call{Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	b.Record(p, guard.Outcome{})
	b.Record(p, guard.Outcome{})
	if s := b.State(); s != breaker.HalfOpen {
		t.Fatalf("after one probe's success recorded twice the breaker is %v, want half-open", s)
	}
	if c := b.Counts(); c.Ignored != 1 || c.Successes != 1 {
		t.Errorf("Counts = %+v, want 1 success and 1 record ignored", c)
	}
	if !call(b, nil) {
		t.Fatal("the second probe was refused")
	}
	if s := b.State(); s != breaker.Closed {
		t.Errorf("after two probes' successes the breaker is %v, want closed", s)
	}
}
