package limiter

import "math/rand/v2"

// window is what one sample window measured.
type window struct {
	// latency is the mean latency of the calls that succeeded, in
	// nanoseconds; 0 if none did.
	latency float64
	// failed says a call failed.
	failed bool
	// peak is the most calls in flight at an admission.
	peak float64
}

// endWindow ends the sample window at now, nanoseconds from the origin,
// and moves the limit by what it measured. It is called by the Record that
// finds the window full and old enough; if another call is ending it
// already, it returns at once rather than wait. The counts of calls that
// end while it runs may go to either window.
func (l *Limiter) endWindow(now int64) {
	if !l.mu.TryLock() {
		return
	}
	defer l.mu.Unlock()
	if now < l.winEnd.Load() {
		return // another call ended it since this one looked
	}
	n, sum, failures := l.successes.Swap(0), l.sum.Swap(0), l.failures.Swap(0)
	inFlight, _ := l.q.Load()
	w := window{failed: failures > 0, peak: float64(max(l.peak.Swap(uint64(inFlight)), uint64(inFlight)))}
	if n > 0 {
		w.latency = float64(sum) / float64(n)
	}
	limit := l.est.update(now, w)
	l.latency.Store(int64(w.latency))
	l.noLoad.Store(int64(l.est.noLoad()))
	// The next window lasts at least as long as this one's calls did, so
	// that the calls it measures were admitted under the new limit.
	l.winEnd.Store(now + max(int64(l.cfg.window), int64(w.latency)))
	l.publish(limit)
}

// estimate is the state the algorithms keep between sample windows.
type estimate struct {
	cfg   *config
	limit float64 // the limit, not rounded
	// base holds the lowest window latency of the current baseline
	// period and of the one before; rotate is when the current one ends.
	base   [2]float64
	rotate int64
	// smooth is an exponential average of the windows' latencies: the
	// baseline is the lowest of it rather than of the windows' own, which
	// the noise of their samples spreads below the true no-load latency.
	smooth float64
	// probing says the window running is a probe, run at probeLimit, and
	// saved the limit to go back to after it; nextProbe is when the next
	// one starts (see update).
	probing   bool
	saved     float64
	nextProbe int64
}

// probeConcurrency is the most calls in flight during a probe window,
// unless the floor is higher: few enough that they queue at no dependency
// worth limiting, as Envoy's gradient controller measures its minimum
// round-trip time at a concurrency of 3.
const probeConcurrency = 3

// probeLimit is the limit of a probe window: probeConcurrency, or the
// floor if it is higher, within the ceiling.
func (e *estimate) probeLimit() float64 {
	return float64(min(max(e.cfg.floor, probeConcurrency), e.cfg.ceiling))
}

// probeEvery returns the time until the next probe: WithProbeInterval's,
// spread by ±25% at random so that the instances of a fleet do not probe
// together.
func (e *estimate) probeEvery() int64 {
	return int64(float64(e.cfg.probe) * (0.75 + 0.5*rand.Float64()))
}

func (e *estimate) init(cfg *config) {
	e.cfg = cfg
	e.limit = float64(cfg.initial)
	e.base = [2]float64{inf, inf}
	e.rotate = int64(cfg.baseline)
}

// baselineSmoothing is the weight of a window's latency in the average the
// baseline is the lowest of.
const baselineSmoothing = 0.1

// inf is the no-load latency before anything is measured.
const inf = float64(1 << 62)

// noLoad returns the no-load latency, in nanoseconds, or 0 if nothing has
// been measured yet.
func (e *estimate) noLoad() float64 {
	if b := min(e.base[0], e.base[1]); b < inf {
		return b
	}
	return 0
}

// update moves the limit by what the window that ended at now measured,
// and returns the new limit, rounded down, within the floor and the
// ceiling.
//
// With WithProbeInterval, it probes the no-load latency again now and
// then: a window at a limit of probeLimit (a few calls, which queue
// nowhere), whose latency is then the baseline, in place of what the
// windows before it remembered; the limit is then what it was before the
// probe, and moves from there by the new baseline. The first probe follows
// the first window that measures a latency, so that a Limiter that starts
// above its dependency's capacity does not take the latency of its first,
// loaded windows for the no-load latency; the others follow every
// interval, spread, so that a baseline learned under load, or a dependency
// that became slower or faster, is measured again. A probe is not started
// while the limit is at probeLimit or below: its windows measure no queue
// already.
func (e *estimate) update(now int64, w window) int {
	if e.probing {
		e.probing = false
		e.nextProbe = now + e.probeEvery()
		if w.latency > 0 && !w.failed {
			e.base = [2]float64{w.latency, inf}
			e.smooth = w.latency
			e.rotate = now + int64(e.cfg.baseline)
		}
		e.limit = e.saved
		if w.failed {
			e.limit *= e.cfg.decrease
		}
		e.limit = min(max(e.limit, float64(e.cfg.floor)), float64(e.cfg.ceiling))
		return int(e.limit)
	}
	if w.latency > 0 {
		if now >= e.rotate {
			// The older period is forgotten; the current one, unless it
			// ended a whole period ago, becomes the older.
			e.base[1], e.base[0] = e.base[0], inf
			if now-e.rotate >= int64(e.cfg.baseline) {
				e.base[1] = inf
			}
			e.rotate = now + int64(e.cfg.baseline)
		}
		if e.smooth == 0 {
			e.smooth = w.latency
		}
		e.smooth += baselineSmoothing * (w.latency - e.smooth)
		e.base[0] = min(e.base[0], e.smooth)
	}
	switch {
	case w.failed:
		e.limit *= e.cfg.decrease
	case w.latency > 0:
		// The latency of no load relative to the latency measured: 1 when
		// nothing queues, towards 0 as the queue grows.
		r := min(e.noLoad()/w.latency, 1)
		if e.cfg.algorithm == vegasRule {
			e.limit = vegas(e.limit, r, w.peak, e.cfg.alpha, e.cfg.beta)
		} else {
			e.limit = gradient(e.limit, r, w.peak, e.cfg.tolerance)
		}
	}
	e.limit = min(max(e.limit, float64(e.cfg.floor)), float64(e.cfg.ceiling))
	if e.cfg.probe > 0 && w.latency > 0 && now >= e.nextProbe && e.limit > e.probeLimit() {
		e.probing, e.saved = true, e.limit
		return int(e.probeLimit())
	}
	return int(e.limit)
}
