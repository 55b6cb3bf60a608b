package budget

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
)

// slotCount is the number of slots a window is kept in.
const slotCount = 10

// The kinds of event a window counts.
const (
	requests = iota // first attempts
	retries         // retries admitted
	kinds
)

// window counts events over a sliding window of time on a clock, kept as
// slotCount slots of a tenth of the window each. An event counts while its
// slot is one of the last slotCount, the current one included.
//
// Each slot holds one word per kind of event: the slot's epoch (the number
// of slot widths from origin to the slot's start, kept to 32 bits) in the
// high half, its count in the low half. Moving a slot on to a new epoch
// and counting in it is then one compare-and-swap: no lock, no allocation.
// The 32-bit epoch wraps after 2^32 slots, which MinWindow makes at least
// 49 days; a slot left untouched for exactly a multiple of that would be
// taken for a current one.
type window struct {
	clk    clock.Clock
	origin time.Time
	width  time.Duration // of a slot
	slots  [slotCount][kinds]atomic.Uint64
}

// init starts w on clk, its slots empty.
func (w *window) init(clk clock.Clock, d time.Duration) {
	w.clk = clk
	w.origin = clk.Now()
	w.width = d / slotCount
	for i := range w.slots {
		// A slot starts empty at the epoch it last held before origin,
		// so that its epoch and its index agree.
		for k := range w.slots[i] {
			w.slots[i][k].Store(tag(int64(i)-slotCount) << 32)
		}
	}
}

// epoch returns the number of the current slot. A clock that goes back
// before origin gives negative epochs; one that goes back by a window or
// more makes the window forget what it counted since.
func (w *window) epoch() int64 {
	d := w.clk.Since(w.origin)
	e := int64(d / w.width)
	if d < 0 && d%w.width != 0 {
		e-- // round down, not toward zero
	}
	return e
}

// slot returns the word of the given kind for epoch e.
func (w *window) slot(e int64, kind int) *atomic.Uint64 {
	i := e % slotCount
	if i < 0 {
		i += slotCount
	}
	return &w.slots[i][kind]
}

// tag is an epoch as a slot keeps it.
func tag(e int64) uint64 { return uint64(uint32(e)) }

// add counts one event of the given kind in epoch e. A count that would
// overflow the slot's 32 bits is dropped.
func (w *window) add(e int64, kind int) {
	word := w.slot(e, kind)
	for {
		old := word.Load()
		var next uint64
		if int32(uint32(e)-uint32(old>>32)) <= 0 {
			// The slot is at e, or at a newer epoch that a caller who read
			// the clock later moved it to: count there.
			if uint32(old) == math.MaxUint32 {
				return
			}
			next = old + 1
		} else {
			// The slot holds an epoch that has left the window: reuse it.
			next = tag(e)<<32 | 1
		}
		if word.CompareAndSwap(old, next) {
			return
		}
	}
}

// count returns the events of the given kind in the window that ends with
// epoch e.
func (w *window) count(e int64, kind int) uint64 {
	var n uint64
	for i := range int64(slotCount) {
		v := w.slot(e-i, kind).Load()
		if v>>32 == tag(e-i) {
			n += uint64(uint32(v))
		}
	}
	return n
}
