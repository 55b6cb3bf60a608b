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
		if got := trips(c.calls, c.failures, c.min, c.rate); got != c.want {
			t.Errorf("trips(%d, %d, %d, %v) = %v, want %v", c.calls, c.failures, c.min, c.rate, got, c.want)
		}
	}
}

func TestCountWindow(t *testing.T) {
	w := newCountWindow(70) // more than one word of bits
	for i := range 140 {
		w.add(i%2 == 0)
	}
	if calls, bad := w.counts(); calls != 70 || bad != 35 {
		t.Fatalf("counts %d, %d, want 70, 35", calls, bad)
	}
	for range 70 {
		w.add(false)
	}
	if calls, bad := w.counts(); calls != 70 || bad != 0 {
		t.Fatalf("counts %d, %d after a window of successes, want 70, 0", calls, bad)
	}
}

// Under -race: concurrent writers leave the failure count equal to the
// failure bits set.
func TestCountWindowConcurrent(t *testing.T) {
	w := newCountWindow(100)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				w.add((g+i)%3 == 0)
			}
		})
	}
	wg.Wait()
	set := 0
	for i := range 100 {
		if w.bits[i/64].Load()&(1<<(i%64)) != 0 {
			set++
		}
	}
	if calls, bad := w.counts(); calls != 100 || bad != uint64(set) {
		t.Fatalf("counts %d, %d; %d failure bits set", calls, bad, set)
	}
}

func TestTimeWindow(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := newTimeWindow(t0, 10*time.Second)
	w.add(t0, true)
	w.add(t0.Add(time.Second), false)
	w.add(t0.Add(9*time.Second), false)
	if calls, bad := w.counts(t0.Add(9 * time.Second)); calls != 3 || bad != 1 {
		t.Fatalf("counts %d, %d, want 3, 1", calls, bad)
	}
	if calls, bad := w.counts(t0.Add(10 * time.Second)); calls != 2 || bad != 0 {
		t.Fatalf("counts %d, %d once the first bucket slid out, want 2, 0", calls, bad)
	}
	w.add(t0.Add(20*time.Second), true) // recycles the first slot
	w.add(t0, false)                    // too late for its bucket: dropped
	if calls, bad := w.counts(t0.Add(20 * time.Second)); calls != 1 || bad != 1 {
		t.Fatalf("counts %d, %d after recycling, want 1, 1", calls, bad)
	}
	if calls, _ := w.counts(t0.Add(-time.Second)); calls != 0 {
		t.Fatalf("counts %d before the start, want 0", calls)
	}
}

// Under -race: concurrent writers in buckets already claimed lose
// nothing.
func TestTimeWindowConcurrent(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := newTimeWindow(t0, 10*time.Second)
	for s := range 4 {
		w.add(t0.Add(time.Duration(s)*time.Second), false)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				w.add(t0.Add(time.Duration(g%4)*time.Second), i%4 == 0)
			}
		})
	}
	wg.Wait()
	if calls, bad := w.counts(t0.Add(9 * time.Second)); calls != 8004 || bad != 2000 {
		t.Fatalf("counts %d, %d, want 8004, 2000", calls, bad)
	}
}
