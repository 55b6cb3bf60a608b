package main

import (
	"context"
	"math/rand/v2"
	"time"
)

// callerSalt sets the callers' random streams apart from the server's.
const callerSalt = 0xc2b2ae3d27d4eb4f

// caller is the loop of the i-th caller: a pause, a call, and again,
// until stop is closed. The first pause spreads the callers' first calls
// over [0, think]; every caller makes at least one call. Its random
// choices (its pauses, which calls it cancels and when) come from a
// stream of its own, seeded.
func (r *runner) caller(i int) {
	rng := rand.New(rand.NewPCG(r.cfg.mix.seed^callerSalt, uint64(i)))
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	r.pause(rng, timer)
	for {
		r.one(rng)
		if !r.pause(rng, timer) {
			return
		}
	}
}

// pause waits a random time in [0, think] on timer, which is stopped and
// drained. It returns false, at once, when stop is closed.
func (r *runner) pause(rng *rand.Rand, timer *time.Timer) bool {
	if r.cfg.think <= 0 {
		select {
		case <-r.stop:
			return false
		default:
			return true
		}
	}
	timer.Reset(time.Duration(rng.Int64N(int64(r.cfg.think) + 1)))
	select {
	case <-timer.C:
		return true
	case <-r.stop:
		timer.Stop()
		return false
	}
}

// one makes one call, with the call's deadline, cancelled at a random
// moment if rng says so, and counts how it ended.
func (r *runner) one(rng *rand.Rand) {
	ctx, cancelTimeout := context.WithTimeout(r.root, r.cfg.callTimeout)
	defer cancelTimeout()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if rng.Float64() < r.cfg.cancel {
		d := time.Duration(rng.Int64N(int64(r.cfg.cancelIn) + 1))
		t := time.AfterFunc(d, func() { cancel(errCallerCanceled) })
		defer t.Stop()
	}
	r.tally.start()
	r.tally.finish(r.target.call(ctx))
}
