package breaker

import (
	"sync"
	"testing"
	"time"
)

func TestTrips(t *testing.T) {
	for _, c := range []struct {
		calls, failures, min uint64
		rate                 float64
		want                 bool
	}{
		{0, 0, 1, 0.5, false},
		{3, 3, 4, 0.5, false},
		{4, 2, 4, 0.5, true},
		{4, 1, 4, 0.5, false},
		{30, 3, 30, 0.1, true},
		{3, 1, 1, 1.0 / 3, true},
		{10, 10, 1, 1, true},
		{10, 9, 1, 1, false},
	} {
		cfg := config{minCalls: c.min, rate: c.rate}
		if got := cfg.trips(tally{calls: c.calls, failures: c.failures}); got != c.want {
			t.Errorf("trips(%d, %d, %d, %v) = %v, want %v", c.calls, c.failures, c.min, c.rate, got, c.want)
		}
	}
}

// The slow-call rate trips on its own, under the same minimum of calls,
// and is ignored without the slow-call rule.
func TestTripsOnSlowCalls(t *testing.T) {
	slow := config{minCalls: 4, rate: 0.5, slow: slowRule{after: time.Second, rate: 0.75}}
	for _, c := range []struct {
		t    tally
		want bool
	}{
		{tally{calls: 4, slow: 3}, true},
		{tally{calls: 4, slow: 2}, false},
		{tally{calls: 3, slow: 3}, false}, // under the minimum
		{tally{calls: 4, failures: 2, slow: 0}, true},
		{tally{calls: 8, failures: 3, slow: 5}, false},
		{tally{calls: 8, failures: 3, slow: 6}, true},
	} {
		if got := slow.trips(c.t); got != c.want {
			t.Errorf("trips(%+v) = %v, want %v", c.t, got, c.want)
		}
	}
	plain := config{minCalls: 4, rate: 0.5}
	if plain.trips(tally{calls: 4, slow: 4}) {
		t.Error("slow calls tripped a breaker without the slow-call rule")
	}
}

func TestCountWindow(t *testing.T) {
	w := newCountWindow(70, true) // more than one word of bits
	for i := range 140 {
		w.add(i%2 == 0, i%5 == 0)
	}
	if got := w.counts(); got != (tally{calls: 70, failures: 35, slow: 14}) {
		t.Fatalf("counts %+v, want 70 calls, 35 failures, 14 slow", got)
	}
	for range 70 {
		w.add(false, false)
	}
	if got := w.counts(); got != (tally{calls: 70}) {
		t.Fatalf("counts %+v after a window of fast successes, want 70 calls only", got)
	}
	plain := newCountWindow(10, false)
	plain.add(true, true)
	if got := plain.counts(); got != (tally{calls: 1, failures: 1}) {
		t.Errorf("counts %+v without the slow-call rule, want no slow calls", got)
	}
}

// Under -race: concurrent writers leave the failure count equal to the
// failure bits set.
func TestCountWindowConcurrent(t *testing.T) {
	w := newCountWindow(100, true)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				w.add((g+i)%3 == 0, (g+i)%4 == 0)
			}
		})
	}
	wg.Wait()
	set := func(r *bitRing) uint64 {
		n := uint64(0)
		for i := range 100 {
			if r.bits[i/64].Load()&(1<<(i%64)) != 0 {
				n++
			}
		}
		return n
	}
	if got := w.counts(); got.calls != 100 || got.failures != set(&w.failed) || got.slow != set(&w.slow) {
		t.Fatalf("counts %+v; %d failure bits and %d slow bits set", got, set(&w.failed), set(&w.slow))
	}
}

func TestTimeWindow(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := newTimeWindow(t0, 10*time.Second)
	w.add(t0, true, true)
	w.add(t0.Add(time.Second), false, true)
	w.add(t0.Add(9*time.Second), false, false)
	if got := w.counts(t0.Add(9 * time.Second)); got != (tally{3, 1, 2}) {
		t.Fatalf("counts %+v, want 3, 1, 2", got)
	}
	if got := w.counts(t0.Add(10 * time.Second)); got != (tally{2, 0, 1}) {
		t.Fatalf("counts %+v once the first bucket slid out, want 2, 0, 1", got)
	}
	w.add(t0.Add(20*time.Second), true, false) // recycles the first slot
	w.add(t0, false, true)                     // too late for its bucket: dropped
	if got := w.counts(t0.Add(20 * time.Second)); got != (tally{1, 1, 0}) {
		t.Fatalf("counts %+v after recycling, want 1, 1, 0", got)
	}
	if got := w.counts(t0.Add(-time.Second)); got.calls != 0 {
		t.Fatalf("counts %+v before the start, want none", got)
	}
}

// Under -race: concurrent writers in buckets already claimed lose
// nothing.
func TestTimeWindowConcurrent(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := newTimeWindow(t0, 10*time.Second)
	for s := range 4 {
		w.add(t0.Add(time.Duration(s)*time.Second), false, false)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				w.add(t0.Add(time.Duration(g%4)*time.Second), i%4 == 0, i%8 == 0)
			}
		})
	}
	wg.Wait()
	if got := w.counts(t0.Add(9 * time.Second)); got != (tally{8004, 2000, 1000}) {
		t.Fatalf("counts %+v, want 8004, 2000, 1000", got)
	}
}
