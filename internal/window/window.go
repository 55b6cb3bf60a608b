// Package window counts events over a sliding window of time on a clock,
// without a lock: the window the ratio budget, the adaptive throttle and
// the breaker's time-based trip rule keep their counts in.
package window

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/internal/setting"
)

// Slots is the number of slots a window is kept in, each a tenth of it.
const Slots = 10

// Kinds is the number of kinds of event a window counts apart: 0, 1
// and 2.
const Kinds = 3

// Min is the shortest window the options of this module accept, so that
// a slot lasts a millisecond at least: the slots' 32-bit epochs then wrap
// after 49 days at the soonest (see Window).
const Min = 10 * time.Millisecond

// Check reports whether d, the window an option named option was given,
// is at least Min; if not, it records the error in *first, in the words of
// settings.
func Check(settings setting.Package, first *error, option string, d time.Duration) bool {
	if d < Min {
		settings.Fail(first, "%s was given a window of %v; it must be at least %v", option, d, Min)
		return false
	}
	return true
}

// Window counts events of Kinds kinds over a sliding window of time on a
// clock, kept as Slots slots of a tenth of the window each. An event counts
// while its slot is one of the last Slots, the current one included.
//
// Each slot holds one word per kind of event: the slot's epoch (the number
// of slot widths from origin to the slot's start, kept to 32 bits) in the
// high half, its count in the low half. Moving a slot on to a new epoch
// and counting in it is then one compare-and-swap: no lock, no allocation.
// The 32-bit epoch wraps after 2^32 slots, which a window of Min, with its
// slots of a millisecond, makes in 49 days; a slot left untouched for
// exactly a multiple of that would be taken for a current one. A Window is safe for concurrent use
// once Init has returned.
type Window struct {
	clk    clock.Clock
	origin time.Time
	width  time.Duration // of a slot
	slots  [Slots][Kinds]atomic.Uint64
}

// Init starts w on clk with a window of d, its slots empty, laid out as
// though w had been started offset earlier: the first slot ends after
// width − offset mod width, where width is d/Slots. An offset of 0 starts
// a slot now. Windows started at the same instant with different offsets
// move their slots on at different instants, as windows started at
// different times do.
func (w *Window) Init(clk clock.Clock, d, offset time.Duration) {
	w.clk = clk
	w.origin = clk.Now().Add(-offset)
	w.width = d / Slots
	for i := range w.slots {
		// A slot starts empty at the epoch it last held before origin,
		// so that its epoch and its index agree.
		for k := range w.slots[i] {
			w.slots[i][k].Store(tag(int64(i)-Slots) << 32)
		}
	}
}

// Clock returns the clock w counts on.
func (w *Window) Clock() clock.Clock { return w.clk }

// Width returns the length of a slot.
func (w *Window) Width() time.Duration { return w.width }

// Epoch returns the number of the current slot. A clock that goes back
// before origin gives negative epochs; one that goes back by a window or
// more makes the window forget what it counted since.
func (w *Window) Epoch() int64 {
	d := w.clk.Since(w.origin)
	e := int64(d / w.width)
	if d < 0 && d%w.width != 0 {
		e-- // round down, not toward zero
	}
	return e
}

// index returns the index of epoch e's slot.
func index(e int64) int64 {
	i := e % Slots
	if i < 0 {
		i += Slots
	}
	return i
}

// slot returns the word of the given kind for epoch e.
func (w *Window) slot(e int64, kind int) *atomic.Uint64 {
	return &w.slots[index(e)][kind]
}

// tag is an epoch as a slot keeps it.
func tag(e int64) uint64 { return uint64(uint32(e)) }

// Add counts one event of the given kind in epoch e, and returns the epoch
// it was counted in: e, or a newer one that a caller who read the clock
// later moved the slot to. A count that would overflow the slot's 32 bits
// is dropped.
func (w *Window) Add(e int64, kind int) int64 {
	word := w.slot(e, kind)
	for {
		old := word.Load()
		var next uint64
		at := e
		if d := int32(uint32(e) - uint32(old>>32)); d <= 0 {
			at = e - int64(d)
			if uint32(old) == math.MaxUint32 {
				return at
			}
			next = old + 1
		} else {
			// The slot holds an epoch that has left the window: reuse it.
			next = tag(e)<<32 | 1
		}
		if word.CompareAndSwap(old, next) {
			return at
		}
	}
}

// Remove takes back an event of the given kind counted in epoch e, if its
// slot still holds e: once the slot has moved on, the event has left the
// window anyway.
func (w *Window) Remove(e int64, kind int) {
	word := w.slot(e, kind)
	for {
		old := word.Load()
		if old>>32 != tag(e) || uint32(old) == 0 {
			return
		}
		if word.CompareAndSwap(old, old-1) {
			return
		}
	}
}

// Count returns the events of the given kind in the window that ends with
// epoch e.
func (w *Window) Count(e int64, kind int) uint64 {
	var n uint64
	for i := range int64(Slots) {
		if v := w.slot(e-i, kind).Load(); v>>32 == tag(e-i) {
			n += uint64(uint32(v))
		}
	}
	return n
}

// Counts returns the events of the kinds 0 and 1 in the window that ends
// with epoch e, read slot by slot.
func (w *Window) Counts(e int64) (zero, one uint64) {
	for i := range int64(Slots) {
		s, t := &w.slots[index(e-i)], tag(e-i)
		if v := s[0].Load(); v>>32 == t {
			zero += uint64(uint32(v))
		}
		if v := s[1].Load(); v>>32 == t {
			one += uint64(uint32(v))
		}
	}
	return zero, one
}
