package budget

import (
	"math"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
)

func newWindow(d time.Duration) (*window, *clock.Mock) {
	clk := clock.NewMock()
	w := &window{}
	w.init(clk, d)
	return w, clk
}

// TestWindowSlots checks the epoch of each instant and that a count stays
// in the window for exactly slotCount slots.
func TestWindowSlots(t *testing.T) {
	w, clk := newWindow(time.Second) // 100 ms slots
	cases := []struct {
		at   time.Duration
		want int64
	}{
		{0, 0}, {99 * time.Millisecond, 0}, {100 * time.Millisecond, 1},
		{time.Second, 10}, {time.Hour, 36000},
	}
	for _, tc := range cases {
		clk.Set(time.Unix(0, 0).Add(tc.at))
		if got := w.epoch(); got != tc.want {
			t.Errorf("epoch at %v = %d, want %d", tc.at, got, tc.want)
		}
	}
	clk.Set(time.Unix(0, 0))
	w.add(w.epoch(), requests)
	w.add(w.epoch(), requests)
	for e := int64(0); e < slotCount+3; e++ {
		want := uint64(2)
		if e >= slotCount {
			want = 0
		}
		if got := w.count(e, requests); got != want {
			t.Errorf("count at epoch %d = %d, want %d", e, got, want)
		}
		if got := w.count(e, retries); got != 0 {
			t.Errorf("retries at epoch %d = %d, want 0: the kinds are apart", e, got)
		}
	}
}

// TestWindowReuse checks that a slot reused a window later starts empty.
func TestWindowReuse(t *testing.T) {
	w, _ := newWindow(time.Second)
	for range 5 {
		w.add(3, requests)
	}
	w.add(3+slotCount, requests)
	if got := w.count(3+slotCount, requests); got != 1 {
		t.Fatalf("count = %d, want 1: the slot kept its old epoch's count", got)
	}
	if got := w.count(3, requests); got != 0 {
		t.Fatalf("count at the old epoch = %d, want 0: its slot was reused", got)
	}
}

// TestWindowLateWriter checks that a caller who read the clock before a
// slot moved on counts in the newer epoch instead of erasing it.
func TestWindowLateWriter(t *testing.T) {
	w, _ := newWindow(time.Second)
	w.add(12, requests)
	w.add(2, requests) // read the clock 10 slots ago
	if got := w.count(12, requests); got != 2 {
		t.Fatalf("count = %d, want 2", got)
	}
}

// TestWindowSaturates checks that a full slot stays full.
func TestWindowSaturates(t *testing.T) {
	w, _ := newWindow(time.Second)
	w.slot(4, requests).Store(tag(4)<<32 | math.MaxUint32)
	w.add(4, requests)
	if got := w.count(4, requests); got != math.MaxUint32 {
		t.Fatalf("count = %d, want %d", got, uint64(math.MaxUint32))
	}
}

// TestWindowClockBack checks that a clock set before the window's origin
// gives consistent negative epochs.
func TestWindowClockBack(t *testing.T) {
	w, clk := newWindow(time.Second)
	clk.Set(time.Unix(0, 0).Add(-250 * time.Millisecond))
	e := w.epoch()
	if e != -3 {
		t.Fatalf("epoch = %d, want -3", e)
	}
	w.add(e, requests)
	if got := w.count(e, requests); got != 1 {
		t.Fatalf("count = %d, want 1", got)
	}
	clk.Set(time.Unix(0, 0))
	if got := w.count(w.epoch(), requests); got != 1 {
		t.Fatalf("count after the clock came back = %d, want 1", got)
	}
}
