package breaker

import (
	"sync"
	"testing"
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
