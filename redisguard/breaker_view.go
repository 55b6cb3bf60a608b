package redisguard

import (
	"time"

	"github.com/herdsafe/backoff/breaker"
)

// What a Breaker knows of the shared state: the view one round trip
// gave, and how a reply becomes one.

// view is the shared state as one round trip saw it.
type view struct {
	state breaker.State
	gen   uint64
	fails uint64
	until time.Time // Open: when it admits a probe, on the local clock
	full  bool      // HalfOpen with its probes taken
	at    time.Time // when the round trip returned, on the local clock

	// The closed state's window of a failure-rate rule: its calls, and
	// the failures and slow calls among them.
	calls, windowFails, windowSlow uint64
}

// reply is a breaker script's reply.
type reply struct {
	state    breaker.State
	gen      uint64
	fails    uint64
	wait     time.Duration
	admitted bool
	probe    bool
	ignored  bool
}

// see reads a script's reply, keeps the state it saw, and reports the
// changes of state the script made to the hook.
func (b *Breaker) see(r []any) (reply, bool) {
	v, ok := ints(r, 9)
	var entered []any
	var window []int64
	if ok && len(r) == 13 {
		entered, ok = r[9].([]any)
		window, _ = ints(r[10:], 3)
	}
	if !ok || window == nil {
		b.link.failed(errReply)
		return reply{}, false
	}
	rp := reply{
		state:    breaker.State(v[0]),
		gen:      uint64(v[1]),
		fails:    uint64(v[2]),
		wait:     time.Duration(v[3]) * time.Microsecond,
		admitted: v[4] == 1,
		probe:    v[5] == 1,
		ignored:  v[6] == 1,
	}
	now := b.cfg.clock.Now()
	b.store(&view{state: rp.state, gen: rp.gen, fails: rp.fails, until: now.Add(rp.wait), full: v[7] == 1, at: now,
		calls: uint64(window[0]), windowFails: uint64(window[1]), windowSlow: uint64(window[2])})
	from := breaker.State(v[8])
	for _, e := range entered {
		to, _ := e.(int64)
		b.transitions.Add(1)
		if b.cfg.onChange != nil {
			b.cfg.onChange(uint8(from), uint8(to))
		}
		from = breaker.State(to)
	}
	return rp, true
}

// store keeps nv unless a view of a later generation is kept already:
// replies of concurrent round trips may come back out of order.
func (b *Breaker) store(nv *view) {
	for {
		old := b.view.Load()
		if old != nil && old.gen > nv.gen {
			return
		}
		if b.view.CompareAndSwap(old, nv) {
			return
		}
	}
}
