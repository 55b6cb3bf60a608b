package bulkhead_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
)

// at returns a context carrying p.
func at(p bulkhead.Priority) context.Context {
	return bulkhead.WithPriority(context.Background(), p)
}

// admits reports how many calls of priority p b admits, one after the
// other with none recorded, before it sheds one; it then records them.
func admits(t *testing.T, b *bulkhead.PriorityBulkhead, p bulkhead.Priority) int {
	t.Helper()
	n := 0
	for ; ; n++ {
		err := allow(b, at(p))
		if err == nil {
			continue
		}
		var shed bulkhead.ShedError
		if !errors.As(err, &shed) || !errors.Is(err, bulkhead.ErrBulkheadFull) {
			t.Fatalf("%v call %d: %v, want a ShedError matching ErrBulkheadFull", p, n+1, err)
		}
		if shed.Priority != min(max(p, bulkhead.Low), bulkhead.Critical) {
			t.Errorf("ShedError.Priority = %v for a %v call", shed.Priority, p)
		}
		break
	}
	for range n {
		record(b)
	}
	return n
}

// "Shed above the threshold" counts the call being admitted: a call is
// admitted if, with it, the utilisation is at most the threshold. With a
// capacity of 10 and the defaults, the 6th concurrent low call is refused
// (6 of 10 is above 50%), the 9th standard call, and the 11th critical one.
func TestShedBoundaries(t *testing.T) {
	cases := []struct {
		capacity      int
		low, standard float64
		want          [3]int // admitted low, standard, critical
	}{
		{10, bulkhead.DefaultLowThreshold, bulkhead.DefaultStandardThreshold, [3]int{5, 8, 10}},
		{2, bulkhead.DefaultLowThreshold, bulkhead.DefaultStandardThreshold, [3]int{1, 1, 2}},
		{3, 0.34, 0.67, [3]int{1, 2, 3}},
		{3, 0.33, 0.66, [3]int{0, 0, 0}}, // 0.33 of 3 leaves no slot: invalid, checked below
		{4, 0.5, 0.75, [3]int{2, 3, 4}},
		{7, 0.5, 0.8, [3]int{3, 5, 7}},
		{100, 0.57, 0.7, [3]int{57, 70, 100}}, // 0.57 × 100 computes to 56.99999999999999
		{10, 0.3, 0.7, [3]int{3, 7, 10}},
		{10, 0.1, 1, [3]int{1, 10, 10}},
		{10, 1, 1, [3]int{10, 10, 10}},
		{10, 0.55, 0.55, [3]int{5, 5, 10}},
	}
	for _, c := range cases {
		b := bulkhead.NewPriority(c.capacity, bulkhead.WithThresholds(c.low, c.standard))
		if c.want[0] == 0 {
			if b.Validate() == nil {
				t.Errorf("capacity %d, thresholds %v/%v: valid, want no slot for low", c.capacity, c.low, c.standard)
			}
			continue
		}
		for i, p := range []bulkhead.Priority{bulkhead.Low, bulkhead.Standard, bulkhead.Critical} {
			if got := admits(t, b, p); got != c.want[i] {
				t.Errorf("capacity %d, thresholds %v/%v: %d %v calls admitted, want %d",
					c.capacity, c.low, c.standard, got, p, c.want[i])
			}
		}
	}
}

// The utilisation counts every call in flight, whatever its priority: with
// k calls in flight, a call of each priority is admitted only if k+1 is
// within its threshold.
func TestShedByUtilisation(t *testing.T) {
	for k := range 11 {
		b := bulkhead.NewPriority(10)
		fill(t, b, at(bulkhead.Critical), k)
		for _, c := range []struct {
			p     bulkhead.Priority
			limit int
		}{{bulkhead.Low, 5}, {bulkhead.Standard, 8}, {bulkhead.Critical, 10}} {
			err := allow(b, at(c.p))
			if want := k+1 <= c.limit; (err == nil) != want {
				t.Errorf("%d in flight: %v call: %v, want admitted %v", k, c.p, err, want)
			}
			if err == nil {
				record(b)
			}
		}
	}
}

// A context with no priority is Standard; a priority out of range is
// clamped to the nearest.
func TestPriorityOfTheContext(t *testing.T) {
	b := bulkhead.NewPriority(10)
	if got := admits(t, b, bulkhead.Standard); got != 8 {
		t.Fatalf("standard: %d admitted, want 8", got)
	}
	n := 0
	for allow(b, context.Background()) == nil {
		n++
	}
	for range n {
		record(b)
	}
	if n != 8 {
		t.Errorf("no priority: %d admitted, want 8, as standard", n)
	}
	if got := admits(t, b, bulkhead.Low-3); got != 5 {
		t.Errorf("below low: %d admitted, want 5, as low", got)
	}
	if got := admits(t, b, bulkhead.Critical+3); got != 10 {
		t.Errorf("above critical: %d admitted, want 10, as critical", got)
	}
}

func TestShedErrorMessage(t *testing.T) {
	b := bulkhead.NewPriority(10)
	fill(t, b, at(bulkhead.Critical), 10)
	for p, want := range map[bulkhead.Priority]string{
		bulkhead.Low:      "bulkhead: low call shed above 50% of capacity",
		bulkhead.Standard: "bulkhead: standard call shed above 80% of capacity",
		bulkhead.Critical: "bulkhead: full: critical call refused at capacity",
	} {
		if err := allow(b, at(p)); err == nil || err.Error() != want {
			t.Errorf("%v: %v, want %q", p, err, want)
		}
	}
}

func TestPriorityStats(t *testing.T) {
	b := bulkhead.NewPriority(10)
	fill(t, b, at(bulkhead.Standard), 8)
	for range 3 {
		_ = allow(b, at(bulkhead.Low))
	}
	_ = allow(b, at(bulkhead.Standard))
	fill(t, b, at(bulkhead.Critical), 2)
	_ = allow(b, at(bulkhead.Critical))
	ctx, cancel := context.WithCancel(at(bulkhead.Critical))
	cancel()
	_ = allow(b, ctx)
	want := bulkhead.PriorityStats{Capacity: 10, InFlight: 10, RefusedLow: 3, RefusedStandard: 1, RefusedCritical: 1, Canceled: 1}
	if got := b.Stats(); got != want {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
}

// N low-priority goroutines ask at once: exactly the threshold's share is
// admitted; the critical calls after them still find their slots.
func TestPriorityConcurrentAdmissionsAreExact(t *testing.T) {
	const callers = 64
	b := bulkhead.NewPriority(10)
	var admitted atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range callers {
		wg.Go(func() {
			<-start
			if err := allow(b, at(bulkhead.Low)); err == nil {
				admitted.Add(1)
			} else if !errors.Is(err, bulkhead.ErrBulkheadFull) {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	if admitted.Load() != 5 {
		t.Errorf("%d low calls admitted, want 5", admitted.Load())
	}
	fill(t, b, at(bulkhead.Critical), 5)
	want := bulkhead.PriorityStats{Capacity: 10, InFlight: 10, RefusedLow: callers - 5}
	if got := b.Stats(); got != want {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
}

// Mixed priorities under load: the calls in flight never exceed the
// capacity, low calls never push it past half, and every slot comes back.
func TestPriorityUnderLoad(t *testing.T) {
	const callers, rounds = 12, 300
	b := bulkhead.NewPriority(8)
	var active, lowPeak, peak atomic.Int64
	raise := func(p *atomic.Int64, n int64) {
		for v := p.Load(); n > v && !p.CompareAndSwap(v, n); v = p.Load() {
		}
	}
	var wg sync.WaitGroup
	for g := range callers {
		p := bulkhead.Priority(g%3) + bulkhead.Low
		wg.Go(func() {
			for range rounds {
				_ = b.Run(at(p), func(context.Context) error {
					n := active.Add(1)
					raise(&peak, n)
					if p == bulkhead.Low {
						raise(&lowPeak, n)
					}
					active.Add(-1)
					return nil
				})
			}
		})
	}
	wg.Wait()
	// active is counted inside the slot, so it can only be lower than the
	// bulkhead's count.
	if peak.Load() > 8 || lowPeak.Load() > 4 {
		t.Errorf("peak %d in flight, %d with a low call; want at most 8 and 4", peak.Load(), lowPeak.Load())
	}
	if s := b.Stats(); s.InFlight != 0 {
		t.Errorf("Stats() = %+v after the load, want nothing in flight", s)
	}
}

// A refusal allocates nothing either: the errors are made by NewPriority.
func TestPriorityRefusalAllocatesNothing(t *testing.T) {
	b := bulkhead.NewPriority(10)
	fill(t, b, at(bulkhead.Critical), 10)
	low := at(bulkhead.Low)
	if n := testing.AllocsPerRun(200, func() { _, _ = b.Allow(low, guard.Call{Attempt: 1}) }); n != 0 {
		t.Errorf("%v allocations per refusal, want 0", n)
	}
}
