package redisguard

import (
	"sync"
	"sync/atomic"
)

// owed is what a Breaker's records have yet to send: the outcomes of
// calls whose Allow made the call's round trip already. They are sent
// with the next round trip, which the next Allow makes while any is owed.
// Only the failure path takes its lock.
type owed struct {
	any   atomic.Bool
	mu    sync.Mutex
	gen   uint64 // the generation they were admitted in
	fails uint64 // failures
	reset bool   // a success came after the last of them
}

// add owes the outcome v of a call admitted in generation gen; those of an
// earlier generation are dropped, as the shared state would ignore them.
func (o *owed) add(gen uint64, v verdict) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.gen != gen {
		o.gen, o.fails, o.reset = gen, 0, false
	}
	if v == failure {
		o.fails++
		o.reset = false
	} else {
		o.reset = true
	}
	o.any.Store(true)
}

// failures returns the failures owed of generation gen.
func (o *owed) failures(gen uint64) uint64 {
	if !o.any.Load() {
		return 0
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.gen != gen {
		return 0
	}
	return o.fails
}

// take returns what is owed, as the script's ARGV 9 to 11, and forgets
// it: a round trip that fails leaves the fleet to the local fallbacks,
// for which it no longer matters.
func (o *owed) take() (gen uint64, fails uint64, reset uint8) {
	if !o.any.Load() {
		return 0, 0, 0
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	gen, fails = o.gen, o.fails
	if o.reset {
		reset = 1
	}
	o.gen, o.fails, o.reset = 0, 0, false
	o.any.Store(false)
	return gen, fails, reset
}
