package redisguard

import (
	"sync"
	"sync/atomic"

	"github.com/benbjohnson/clock"
)

// owed is what a Breaker's records have yet to send: with failures in a
// row, the outcomes of calls whose Allow made the call's round trip
// already; with a failure rate, every outcome, which the window counts.
// They are sent with the next round trip: with failures in a row, the
// next Allow makes one while any is owed; with a failure rate, the next
// that finds the state it saw stale.
//
// The counts are atomic, so that a success of a failure-rate rule, owed,
// takes no lock; the lock is taken when the generation changes, and by
// take. A count added as another goroutine sees the generation change may
// land in the new generation's counts: one call, at a change of state.
type owed struct {
	any atomic.Bool
	mu  sync.Mutex
	gen atomic.Uint64 // the generation they were admitted in

	fails     atomic.Uint64 // failures
	slowFails atomic.Uint64 // slow failures, counted in fails too
	oks       atomic.Uint64 // successes
	slowOks   atomic.Uint64 // slow successes, counted in oks too
	reset     atomic.Bool   // a success came after the last failure
	since     atomic.Int64  // when the first of them was recorded, in Unix ns of the clock
}

// add owes the outcome v, slow or not, of a call admitted in generation
// gen; those of an earlier generation are dropped, as the shared state
// would ignore them. clk is read once per sending, with the first
// outcome owed.
func (o *owed) add(gen uint64, v verdict, slow bool, clk clock.Clock) {
	if o.gen.Load() != gen {
		o.mu.Lock()
		if o.gen.Load() != gen {
			o.clear()
			o.gen.Store(gen)
		}
		o.mu.Unlock()
	}
	if v == failure {
		o.fails.Add(1)
		if slow {
			o.slowFails.Add(1)
		}
		o.reset.Store(false)
	} else {
		o.oks.Add(1)
		if slow {
			o.slowOks.Add(1)
		}
		o.reset.Store(true)
	}
	if !o.any.Load() {
		if o.since.Load() == 0 {
			o.since.CompareAndSwap(0, max(clk.Now().UnixNano(), 1)) // 0 is none
		}
		o.any.Store(true)
	}
}

// clear forgets the counts.
func (o *owed) clear() {
	o.fails.Store(0)
	o.slowFails.Store(0)
	o.oks.Store(0)
	o.slowOks.Store(0)
	o.reset.Store(false)
	o.since.Store(0)
}

// counts returns the calls, failures and slow calls owed of generation
// gen.
func (o *owed) counts(gen uint64) (calls, fails, slow uint64) {
	if !o.any.Load() || o.gen.Load() != gen {
		return 0, 0, 0
	}
	fails, oks := o.fails.Load(), o.oks.Load()
	return fails + oks, fails, o.slowFails.Load() + o.slowOks.Load()
}

// owedArgs are what take returns: the script's ARGV 14 to 20.
type owedArgs struct {
	gen, fails, slowFails, oks, slowOks uint64
	reset                               uint8
	age                                 int64 // µs since the first was recorded
}

// take returns what is owed, its age read on clk, and forgets it: a round trip that
// fails leaves the fleet to the local fallbacks, for which it no longer
// matters.
func (o *owed) take(clk clock.Clock) owedArgs {
	if !o.any.Load() {
		return owedArgs{}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.any.Store(false)
	a := owedArgs{
		gen:       o.gen.Load(),
		fails:     o.fails.Swap(0),
		slowFails: o.slowFails.Swap(0),
		oks:       o.oks.Swap(0),
		slowOks:   o.slowOks.Swap(0),
	}
	if o.reset.Swap(false) {
		a.reset = 1
	}
	if since := o.since.Swap(0); since != 0 {
		a.age = max(clk.Now().UnixNano()-since, 0) / 1000
	}
	// The counts are taken one by one: under concurrent adds a slow
	// count may come without its call, and is kept to the calls.
	a.slowFails, a.slowOks = min(a.slowFails, a.fails), min(a.slowOks, a.oks)
	return a
}

// owe decides whether the outcome v, slow or not, of a closed state's call
// of generation gen, whose Allow made a round trip if paid, waits for the
// next round trip (it is then owed, or needs sending at all), or goes now.
func (b *Breaker) owe(cur *view, gen uint64, v verdict, slow, paid bool) bool {
	if b.link.local.Load() {
		return !b.rated() && v == success && cur.fails == 0
	}
	if b.rated() {
		if v == failure || slow {
			calls, fails, slows := b.owed.counts(gen)
			t := tally{calls: cur.calls + calls + 1, fails: cur.windowFails + fails, slow: cur.windowSlow + slows}
			if v == failure {
				t.fails++
			}
			if slow {
				t.slow++
			}
			if b.trips(t) {
				return false // a call that may trip the breaker goes at once
			}
		}
		b.owed.add(gen, v, slow, b.cfg.clock)
		return true
	}
	switch {
	case v == success && cur.fails == 0:
		return true
	case !paid:
		return false
	}
	if _, fails, _ := b.owed.counts(gen); v == success || cur.fails+fails+1 < uint64(b.rule.Threshold) {
		b.owed.add(gen, v, false, b.cfg.clock)
		return true
	}
	return false // a failure that may trip the breaker goes at once
}
