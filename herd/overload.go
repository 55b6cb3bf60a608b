package herd

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"time"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/policy"
)

// The Overload scenario's events; call is the caller of the call, version
// its generation, so that an event of a call that has ended is told from
// one of the call that took its caller since.
const (
	overloadArrive  kind = 96 + iota // a call reaches the server
	overloadServed                   // a worker has served a call
	overloadAnswer                   // a call's answer reaches its client
	overloadTimeout                  // a client gives a call up
	overloadRefused                  // the server's refusal reaches the client
)

// errServerRefused is what a client of the Overload scenario is answered
// when the server's queue refuses or drops its call.
var errServerRefused = errors.New("herd: the server refused the call")

// overload is the state of an Overload simulation.
type overload struct {
	srv      Server
	guards   [][]guard.Guard  // per client, outermost first
	policies []*policy.Policy // per client: its guards' stages
	service  *rand.Rand       // the service times

	calls []overloadCall // by slot
	slots []int32        // the free slots
	idle  []*caller      // the callers with no call

	bounds   []time.Duration // the stages' starts, and the end of the last
	stage    int             // the stage of the next call the fleet starts
	nth      int             // the number of that call within its stage
	started  int             // the calls the fleet started
	pending  int             // calls sent whose client waits for them
	interval []float64       // per stage, ns between two calls of the fleet

	arrivals *rand.Rand    // the Poisson arrivals' gaps
	at       time.Duration // Poisson: the next start, if drawn
	drawn    bool
	last     time.Duration // Poisson: the last start, or the stage's

	workers, busy int           // the workers in service, and those serving a call
	fifo          []overloadJob // the calls waiting for a worker
	head          int           // fifo's first

	stageLat [][]int32 // per stage, the latencies (µs) of the calls that ended in it
	binLat   [][]int32 // per bin, the same
	sampled  int       // the windows whose fleet limit is in Limit
}

// overloadCall is a call of the fleet in flight.
type overloadCall struct {
	caller  *caller // the Policy's, if its client has guards
	start   time.Duration
	gen     uint64
	client  int32
	stage   int  // the stage it started in
	sent    bool // its guards admitted it
	waiting bool // sent, and its client waits for it
}

// overloadJob is a call in the server's queue.
type overloadJob struct {
	slot int32
	gen  uint64
}

// simulateOverload runs the Overload scenario of the checked cfg, its
// defaults set.
func (s *sim) simulateOverload() {
	srv := s.cfg.Server.withDefaults()
	o := &overload{
		srv:      srv,
		guards:   make([][]guard.Guard, s.cfg.Clients),
		policies: make([]*policy.Policy, s.cfg.Clients),
		service:  rand.New(rand.NewPCG(mix(s.cfg.Seed^0x510e527fade682d1), mix(s.cfg.Seed^0x9b05688c2b3e6c1f))),
		bounds:   make([]time.Duration, len(srv.Stages)+1),
		arrivals: rand.New(rand.NewPCG(mix(s.cfg.Seed^0x3c6ef372fe94f82b), mix(s.cfg.Seed^0xa54ff53a5f1d36f1))),
	}
	s.ov = o
	s.finished, s.run1 = s.overloadDone, s.overloadRun
	r := &s.res.Overload
	r.Capacity, r.NoLoad, r.Bin = srv.Capacity(), srv.NoLoad(s.cfg.Delay), 10*s.cfg.Window
	r.NoLoadP99 = srv.NoLoadP99(s.cfg.Delay)
	for i, st := range srv.Stages {
		o.bounds[i+1] = o.bounds[i] + st.Duration
		o.interval = append(o.interval, float64(time.Second)/(st.Load*r.Capacity))
		r.Stages = append(r.Stages, StageResult{Stage: st})
	}
	o.stageLat = make([][]int32, len(srv.Stages))
	if err := s.initOverloadGuards(); err != nil {
		s.res.Err = err
		return
	}
	o.workers = o.workersIn(0)
	s.runOverload()
	s.finishOverload()
}

// initOverloadGuards builds every client's guards, and its Policy of
// their stages: a call is not retried.
func (s *sim) initOverloadGuards() error {
	o := s.ov
	for c := range s.cfg.Clients {
		if c%checkEvery == checkEvery-1 && s.stopped() {
			return context.Cause(s.ctx)
		}
		if s.cfg.NewGuards == nil {
			o.policies[c] = policy.New()
			continue
		}
		gs := s.clientGuards(c)
		stages := make([]policy.Stage, 0, len(gs))
		for i, g := range gs {
			if err := checkGuard(g, i, c); err != nil {
				return err
			}
			if _, ok := g.(*limiter.Limiter); ok {
				s.res.Overload.Adaptive = true
			}
			stages = append(stages, policy.Guard(g))
		}
		o.guards[c], o.policies[c] = gs, policy.New(stages...)
	}
	return nil
}

// workersIn returns the workers in service in stage i.
func (o *overload) workersIn(i int) int {
	return max(1, int(math.Round(float64(o.srv.Workers)*o.srv.Stages[i].Capacity)))
}

// nextStart returns when the fleet starts its next call, false once the
// stages are over.
func (o *overload) nextStart() (time.Duration, bool) {
	for o.stage < len(o.srv.Stages) {
		at := o.bounds[o.stage] + time.Duration(float64(o.nth)*o.interval[o.stage])
		if o.srv.Arrivals != Even {
			if !o.drawn {
				o.at, o.drawn = o.last+time.Duration(o.arrivals.ExpFloat64()*o.interval[o.stage]), true
			}
			at = o.at
		}
		if at < o.bounds[o.stage+1] {
			return at, true
		}
		o.stage, o.nth = o.stage+1, 0
		o.last, o.drawn = o.bounds[o.stage], false
	}
	return 0, false
}

// runOverload processes the fleet's calls and the events they make until
// every call the fleet started has ended, the horizon is reached, or the
// context is done.
func (s *sim) runOverload() {
	o := s.ov
	for n := 1; s.res.Err == nil; n++ {
		if n%checkEvery == 0 && s.stopped() {
			s.res.Err = context.Cause(s.ctx)
			return
		}
		at, begin := o.nextStart()
		next, queued := s.q.peek()
		if begin && queued && next < at {
			begin = false
		}
		if !begin && (o.pending == 0 || !queued) {
			return // the stages are over, and no client waits
		}
		var e event
		if begin {
			e = event{at: at}
		} else {
			e = s.q.pop()
		}
		if e.at > s.cfg.Horizon {
			return
		}
		s.sampleLimits(e.at)
		s.now = e.at
		switch {
		case begin:
			s.beginOverload()
		case e.kind == overloadArrive:
			s.arriveOverload(overloadJob{slot: e.call, gen: e.version})
		case e.kind == overloadServed:
			s.servedOverload(e)
		case e.kind == overloadAnswer:
			s.endOverload(e.call, e.version, false, false)
		case e.kind == overloadTimeout:
			s.endOverload(e.call, e.version, true, false)
		case e.kind == overloadRefused:
			s.refusedOverload(e.call, e.version)
		}
	}
}

// beginOverload starts the fleet's next call, on the next client in turn.
// A client with guards makes it through its Policy, on an idle caller:
// the guards are asked, outermost first, and if all admit it, it is sent
// (overloadAttempt). A client without guards sends it: a Policy of no
// stage calls its function once, and there is nothing to drive.
func (s *sim) beginOverload() {
	o := s.ov
	if o.nth == 0 && o.stage > 0 {
		o.workers = o.workersIn(o.stage)
		s.startWorkers()
	}
	o.nth++
	o.last, o.drawn = s.now, false
	client := int32(o.started % s.cfg.Clients)
	o.started++
	s.res.Overload.Stages[o.stage].Started++
	slot := s.overloadSlot()
	u := &o.calls[slot]
	u.gen, u.client, u.stage, u.sent, u.caller = u.gen+1, client, o.stage, false, nil
	if len(o.guards[client]) == 0 {
		s.sendOverload(slot)
		return
	}
	c, ok := pop(&o.idle)
	if !ok {
		c = s.newCaller(s.overloadAttempt)
	}
	c.client, c.start, u.caller = client, slot, c
	s.start(c, s.run1)
}

// overloadSlot returns a free call slot.
func (s *sim) overloadSlot() int32 {
	o := s.ov
	if i, ok := pop(&o.slots); ok {
		return i
	}
	o.calls = append(o.calls, overloadCall{})
	return int32(len(o.calls) - 1)
}

// overloadRun is a call: its client's Policy, around its one attempt.
func (s *sim) overloadRun(c *caller) error {
	return s.ov.policies[c.client].DoErr(s.loops, c.attempt)
}

// overloadAttempt is a call the guards admitted: it is sent, and its
// client waits for the answer or gives the call up at the timeout,
// whichever comes first.
func (s *sim) overloadAttempt(c *caller) error {
	s.sendOverload(c.start)
	if !c.wait() {
		return context.Cause(s.loops)
	}
	switch {
	case c.refused:
		c.refused = false
		return errServerRefused
	case !c.ok:
		return context.DeadlineExceeded
	}
	return nil
}

// sendOverload sends the call in slot: it reaches the server a network
// delay later, and its client gives it up at the timeout.
func (s *sim) sendOverload(slot int32) {
	o := s.ov
	u := &o.calls[slot]
	u.start, u.sent, u.waiting = s.now, true, true
	o.pending++
	s.res.Calls++
	s.res.ClientCalls[u.client]++
	s.count()
	s.q.push(event{at: sat(s.now, s.delay()), call: slot, version: u.gen, kind: overloadArrive})
	s.q.push(event{at: sat(s.now, o.srv.Timeout), call: slot, version: u.gen, kind: overloadTimeout})
}

// overloadDone counts a call the guards refused (or one an Allow failed,
// guard.Failure: it is not sent either way), and frees its slot and its
// caller.
func (s *sim) overloadDone(c *caller) {
	o := s.ov
	u := &o.calls[c.start]
	if !u.sent {
		s.res.Overload.Stages[u.stage].Refused++
	}
	u.caller = nil
	o.slots = append(o.slots, c.start)
	o.idle = append(o.idle, c)
}

// endOverload is the answer to the call in slot, generation gen,
// reaching its client, or, if timedOut, the client giving it up: the
// first of the two ends the call, and its Policy tells the guards,
// innermost first.
func (s *sim) endOverload(slot int32, gen uint64, timedOut, refused bool) {
	o := s.ov
	u := &o.calls[slot]
	if u.gen != gen || !u.waiting {
		return // it ended already
	}
	u.waiting = false
	o.pending--
	lat := s.now - u.start
	if timedOut {
		lat = o.srv.Timeout
	}
	if c := u.caller; c != nil {
		c.ok = !timedOut && !refused
		defer s.step(c) // the Policy tells the guards; overloadDone frees the slot
	} else {
		o.slots = append(o.slots, slot)
	}

	i := o.stageAt(s.now)
	st := &s.res.Overload.Stages[i]
	us := int32(min(lat/time.Microsecond, math.MaxInt32))
	o.stageLat[i] = append(o.stageLat[i], us)
	b := int(s.now / s.res.Overload.Bin)
	for len(o.binLat) <= b {
		o.binLat = append(o.binLat, nil)
	}
	o.binLat[b] = append(o.binLat[b], us)
	switch {
	case timedOut:
		st.TimedOut++
		return
	case refused:
		st.ServerRefused++
		return
	}
	st.Succeeded++
	w := int(s.now / s.cfg.Window)
	for len(s.res.Overload.Succeeded) <= w {
		s.res.Overload.Succeeded = append(s.res.Overload.Succeeded, 0)
	}
	s.res.Overload.Succeeded[w]++
}

// stageAt returns the stage at t, the last one after the stages.
func (o *overload) stageAt(t time.Duration) int {
	for i := range o.srv.Stages {
		if t < o.bounds[i+1] {
			return i
		}
	}
	return len(o.srv.Stages) - 1
}

// sampleLimits records the fleet's limit at the end of every window that
// ends by t: the guards do not change between events.
func (s *sim) sampleLimits(t time.Duration) {
	o := s.ov
	end := min(t, o.bounds[len(o.bounds)-1])
	for w := o.sampled; time.Duration(w+1)*s.cfg.Window <= end; w++ {
		s.res.Overload.Limit = append(s.res.Overload.Limit, s.fleetLimit())
		o.sampled++
	}
}

// fleetLimit returns the sum of the fleet's limits: the capacity each
// guard's Load tells (a limiter's current limit, a bulkhead's slots).
func (s *sim) fleetLimit() int {
	n := 0
	for _, gs := range s.ov.guards {
		for _, g := range gs {
			if l, ok := g.(guard.Loader); ok {
				n += max(l.Load().Capacity, 0)
			}
		}
	}
	return n
}

// finishOverload computes the stages' figures from the counts.
func (s *sim) finishOverload() {
	o, r, w := s.ov, &s.res.Overload, s.cfg.Window
	s.sampleLimits(o.bounds[len(o.bounds)-1])
	r.Measured.Name = "measured"
	var all []int32
	var capacity, load float64
	for i := range r.Stages {
		st := &r.Stages[i]
		seconds := st.Duration.Seconds()
		if served := r.Capacity * st.Capacity * seconds; served > 0 {
			st.Goodput = float64(st.Succeeded) / served
		}
		st.P50, st.P99 = percentile(o.stageLat[i], 0.5), percentile(o.stageLat[i], 0.99)
		if i > 0 && r.Adaptive {
			from, to := int((o.bounds[i]+w-1)/w), int(o.bounds[i+1]/w)
			st.Settle, st.Settled = settle(r.Limit, from, to, w)
		}
		if i == 0 {
			continue
		}
		m := &r.Measured
		m.Duration += st.Duration
		m.Started += st.Started
		m.Refused += st.Refused
		m.Succeeded += st.Succeeded
		m.TimedOut += st.TimedOut
		m.ServerRefused += st.ServerRefused
		capacity += r.Capacity * st.Capacity * seconds
		load += st.Load * seconds
		all = append(all, o.stageLat[i]...)
	}
	m := &r.Measured
	if capacity > 0 {
		m.Goodput = float64(m.Succeeded) / capacity
		m.Capacity = capacity / r.Capacity / m.Duration.Seconds()
		m.Load = load / m.Duration.Seconds()
	}
	m.P50, m.P99 = percentile(all, 0.5), percentile(all, 0.99)
	r.P99 = make([]time.Duration, len(o.binLat))
	for b, lat := range o.binLat {
		r.P99[b] = percentile(lat, 0.99)
	}
	for _, n := range s.res.Load {
		s.res.PeakLoad = max(s.res.PeakLoad, n)
	}
}
