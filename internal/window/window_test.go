package window

import (
	"math"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
)

const (
	first  = 0
	second = 1
)

func newWindow(d time.Duration) (*Window, *clock.Mock) {
	clk := clock.NewMock()
	w := &Window{}
	w.Init(clk, d, 0)
	return w, clk
}

// The epoch of each instant, and a count that stays in the window for
// exactly Slots slots, the kinds apart.
func TestWindowSlots(t *testing.T) {
	w, clk := newWindow(time.Second) // 100 ms slots
	if w.Width() != 100*time.Millisecond {
		t.Fatalf("Width() = %v, want 100ms", w.Width())
	}
	cases := []struct {
		at   time.Duration
		want int64
	}{
		{0, 0}, {99 * time.Millisecond, 0}, {100 * time.Millisecond, 1},
		{time.Second, 10}, {time.Hour, 36000},
	}
	for _, tc := range cases {
		clk.Set(time.Unix(0, 0).Add(tc.at))
		if got := w.Epoch(); got != tc.want {
			t.Errorf("epoch at %v = %d, want %d", tc.at, got, tc.want)
		}
	}
	w.Add(0, first)
	w.Add(0, first)
	w.Add(4, second)
	for e := int64(0); e < Slots+6; e++ {
		var f, s uint64
		if e < Slots {
			f = 2
		}
		if e >= 4 && e < 4+Slots {
			s = 1
		}
		if a, b := w.Counts(e); a != f || b != s || w.Count(e, first) != f || w.Count(e, second) != s {
			t.Errorf("counts at epoch %d = %d, %d, want %d, %d", e, a, b, f, s)
		}
	}
}

// A slot reused a window later starts empty.
func TestWindowReuse(t *testing.T) {
	w, _ := newWindow(time.Second)
	for range 5 {
		w.Add(3, first)
	}
	w.Add(3+Slots, first)
	if got := w.Count(3+Slots, first); got != 1 {
		t.Fatalf("count = %d, want 1: the slot kept its old epoch's count", got)
	}
	if got := w.Count(3, first); got != 0 {
		t.Fatalf("count at the old epoch = %d, want 0: its slot was reused", got)
	}
}

// A caller who read the clock before a slot moved on counts in the newer
// epoch instead of erasing it, and Add says where it counted.
func TestWindowLateWriter(t *testing.T) {
	w, _ := newWindow(time.Second)
	if got := w.Add(12, first); got != 12 {
		t.Fatalf("Add(12) counted in %d", got)
	}
	if got := w.Add(2, first); got != 12 { // read the clock 10 slots ago
		t.Fatalf("a late Add(2) counted in %d, want 12", got)
	}
	if got := w.Count(12, first); got != 2 {
		t.Fatalf("count = %d, want 2", got)
	}
}

// Remove takes back a count only from the epoch it was made in, and never
// below 0.
func TestWindowRemove(t *testing.T) {
	w, _ := newWindow(time.Second)
	w.Add(5, first)
	w.Remove(15, first) // another epoch of the same slot
	if got := w.Count(5, first); got != 1 {
		t.Fatalf("count = %d, want 1", got)
	}
	w.Remove(5, first)
	w.Remove(5, first)
	if got := w.Count(5, first); got != 0 {
		t.Fatalf("count = %d, want 0", got)
	}
	w.Add(5, first)
	if got := w.Count(5, first); got != 1 {
		t.Fatalf("count after removal and Add = %d, want 1", got)
	}
}

// A full slot stays full.
func TestWindowSaturates(t *testing.T) {
	w, _ := newWindow(time.Second)
	w.slot(4, second).Store(tag(4)<<32 | math.MaxUint32)
	w.Add(4, second)
	if got := w.Count(4, second); got != math.MaxUint32 {
		t.Fatalf("count = %d, want %d", got, uint64(math.MaxUint32))
	}
}

// A clock set before the window's origin gives consistent negative
// epochs.
func TestWindowClockBack(t *testing.T) {
	w, clk := newWindow(time.Second)
	clk.Set(time.Unix(0, 0).Add(-250 * time.Millisecond))
	e := w.Epoch()
	if e != -3 {
		t.Fatalf("epoch = %d, want -3", e)
	}
	w.Add(e, first)
	if got := w.Count(e, first); got != 1 {
		t.Fatalf("count = %d, want 1", got)
	}
	clk.Set(time.Unix(0, 0))
	if got := w.Count(w.Epoch(), first); got != 1 {
		t.Fatalf("count after the clock came back = %d, want 1", got)
	}
}

// A window started with an offset moves its slots on offset mod width
// earlier than one started without, and starts as empty.
func TestWindowOffset(t *testing.T) {
	for _, tc := range []struct {
		offset time.Duration
		// the instants after the start at which the epoch changes first
		// and second, and the epoch at the start
		first, second time.Duration
		start         int64
	}{
		{0, 100 * time.Millisecond, 200 * time.Millisecond, 0},
		{30 * time.Millisecond, 70 * time.Millisecond, 170 * time.Millisecond, 0},
		{930 * time.Millisecond, 70 * time.Millisecond, 170 * time.Millisecond, 9},
	} {
		clk := clock.NewMock()
		w := &Window{}
		w.Init(clk, time.Second, tc.offset)
		start := clk.Now()
		if e := w.Epoch(); e != tc.start {
			t.Errorf("offset %v: epoch %d at the start, want %d", tc.offset, e, tc.start)
		}
		if a, b := w.Counts(w.Epoch()); a != 0 || b != 0 {
			t.Errorf("offset %v: counts %d, %d at the start, want none", tc.offset, a, b)
		}
		w.Add(w.Epoch(), first)
		for _, at := range []time.Duration{tc.first, tc.second} {
			clk.Set(start.Add(at - time.Nanosecond))
			before := w.Epoch()
			clk.Set(start.Add(at))
			if w.Epoch() != before+1 {
				t.Errorf("offset %v: the epoch moved from %d to %d at %v, want a step of 1 there", tc.offset, before, w.Epoch(), at)
			}
		}
		// The count made at the start leaves the window Slots slots after
		// its own slot began, offset earlier than a window without one.
		clk.Set(start.Add(time.Second - tc.offset%(100*time.Millisecond) - time.Nanosecond))
		if got := w.Count(w.Epoch(), first); got != 1 {
			t.Errorf("offset %v: count %d just before it leaves the window, want 1", tc.offset, got)
		}
		clk.Set(start.Add(time.Second - tc.offset%(100*time.Millisecond)))
		if got := w.Count(w.Epoch(), first); got != 0 {
			t.Errorf("offset %v: count %d once it left the window, want 0", tc.offset, got)
		}
	}
}
