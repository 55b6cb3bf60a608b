package throttle

import (
	"math"
	"testing"
	"time"
)

func newWindow(d time.Duration) *window {
	w := &window{}
	w.init(newMock(), d)
	return w
}

// TestWindowCounts checks that a count stays in the window for exactly
// slotCount slots, and that the kinds are apart.
func TestWindowCounts(t *testing.T) {
	w := newWindow(time.Second)
	w.add(0, requests)
	w.add(0, requests)
	w.add(4, accepts)
	for e := int64(0); e < slotCount+6; e++ {
		var req, acc uint64
		if e < slotCount {
			req = 2
		}
		if e >= 4 && e < 4+slotCount {
			acc = 1
		}
		if r, a := w.counts(e); r != req || a != acc {
			t.Errorf("counts at epoch %d = %d, %d, want %d, %d", e, r, a, req, acc)
		}
	}
}

// TestWindowAddReturnsEpoch checks that add reports the epoch it counted
// in: a late caller counts in the newer epoch of the slot.
func TestWindowAddReturnsEpoch(t *testing.T) {
	w := newWindow(time.Second)
	if got := w.add(3, requests); got != 3 {
		t.Fatalf("add(3) counted in %d", got)
	}
	if got := w.add(13, requests); got != 13 {
		t.Fatalf("add(13) counted in %d", got)
	}
	if got := w.add(3, requests); got != 13 {
		t.Fatalf("a late add(3) counted in %d, want 13", got)
	}
	if r, _ := w.counts(13); r != 2 {
		t.Fatalf("requests = %d, want 2", r)
	}
}

// TestWindowRemove checks that remove takes back a count only from the
// epoch it was made in, and never below 0.
func TestWindowRemove(t *testing.T) {
	w := newWindow(time.Second)
	w.add(5, requests)
	w.remove(15, requests) // another epoch of the same slot
	if r, _ := w.counts(5); r != 1 {
		t.Fatalf("requests = %d, want 1", r)
	}
	w.remove(5, requests)
	w.remove(5, requests)
	if r, _ := w.counts(5); r != 0 {
		t.Fatalf("requests = %d, want 0", r)
	}
	w.add(5, requests)
	if r, _ := w.counts(5); r != 1 {
		t.Fatalf("requests after removal and add = %d, want 1", r)
	}
}

// TestWindowSaturates checks that a full slot stays full.
func TestWindowSaturates(t *testing.T) {
	w := newWindow(time.Second)
	w.slot(2, accepts).Store(tag(2)<<32 | math.MaxUint32)
	w.add(2, accepts)
	if _, a := w.counts(2); a != math.MaxUint32 {
		t.Fatalf("accepts = %d, want %d", a, uint64(math.MaxUint32))
	}
}

// TestWindowNegativeEpochs checks a clock set before the window's origin.
func TestWindowNegativeEpochs(t *testing.T) {
	w := newWindow(time.Second)
	clk := newMock()
	w.init(clk, time.Second)
	clk.Set(time.Unix(0, 0).Add(-1))
	e := w.epoch()
	if e != -1 {
		t.Fatalf("epoch = %d, want -1", e)
	}
	if got := w.add(e, requests); got != -1 {
		t.Fatalf("add counted in %d", got)
	}
	w.remove(-1, requests)
	w.add(-1, requests)
	if r, _ := w.counts(-1); r != 1 {
		t.Fatalf("requests = %d, want 1", r)
	}
}
