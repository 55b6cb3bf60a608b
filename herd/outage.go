package herd

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
)

// ErrUnavailable is the error of a call that the Outage scenario's
// dependency failed, as the client's guards are told of it in
// guard.Outcome.Err: every call while it is down, a fraction of them
// while it is degraded.
var ErrUnavailable = errors.New("herd: dependency unavailable")

// outage is the state of an Outage simulation: the fleet's guards and
// BackOffs, and its user calls in flight.
type outage struct {
	clk    virtualClock
	view   *stageView
	guards [][]guard.Guard // per client, outermost first
	jitter []*rand.Rand    // per client: the draws of its BackOffs
	free   [][]backoff.BackOff
	seen   map[*backoff.ExponentialBackOff]bool
	server *rand.Rand // which calls fail while degraded

	calls []userCall // the user calls, by slot
	slots []int32    // the free slots

	bounds   [NumPhases + 1]time.Duration // the phases' starts, and their end
	interval float64                      // ns between two user calls of the fleet
	next     int                          // the number of the next user call
	total    int                          // the user calls the fleet starts
}

// userCall is one user call in flight: a first attempt and its retries.
type userCall struct {
	backOff backoff.BackOff // nil: the slot is free
	permits []guard.Permit
	client  int32
	attempt int32
	phase   Phase // when it started
}

// initOutage builds every client's guards, and the rest of the state of
// an Outage simulation.
func (s *sim) initOutage() error {
	n := len(s.clients)
	o := &outage{
		view:     newStageView(),
		guards:   make([][]guard.Guard, n),
		jitter:   make([]*rand.Rand, n),
		free:     make([][]backoff.BackOff, n),
		seen:     make(map[*backoff.ExponentialBackOff]bool),
		server:   rand.New(rand.NewPCG(mix(s.cfg.Seed^0xbb67ae8584caa73b), mix(s.cfg.Seed^0x3c6ef372fe94f82b))),
		bounds:   s.cfg.Phases.starts(),
		interval: float64(time.Second) / (float64(n) * s.cfg.Rate),
	}
	o.clk = virtualClock{now: &s.now}
	s.out = o
	end := o.bounds[NumPhases]
	o.total = int(float64(end) / o.interval)
	for o.total > 0 && s.startOf(o.total-1) >= end {
		o.total--
	}
	for s.startOf(o.total) < end {
		o.total++
	}
	s.res.Outage.Base = float64(n) * s.cfg.Rate * s.cfg.Window.Seconds()
	for c := range n {
		if c%checkEvery == checkEvery-1 && s.stopped() {
			return context.Cause(s.ctx)
		}
		o.jitter[c] = rand.New(rand.NewPCG(mix(s.cfg.Seed), mix(uint64(c)+1)))
		if s.cfg.NewGuards == nil {
			continue
		}
		r := rand.New(rand.NewPCG(mix(s.cfg.Seed^0xa54ff53a5f1d36f1), mix(uint64(c)+1)))
		gs := s.cfg.NewGuards(o.clk, r.Float64)
		for i, g := range gs {
			if g == nil {
				return fmt.Errorf("%w: NewGuards returned a nil guard (number %d) for client %d", ErrInvalidBackOff, i, c)
			}
			if v, ok := g.(guard.Validator); ok {
				if err := v.Validate(); err != nil {
					return fmt.Errorf("%w: guard %d: %w", ErrInvalidBackOff, i, err)
				}
			}
		}
		o.guards[c] = gs
	}
	return nil
}

// startOf returns when the fleet starts user call j.
func (s *sim) startOf(j int) time.Duration {
	return time.Duration(float64(j) * s.out.interval)
}

// phaseAt returns the phase the dependency is in at t; after the phases,
// it stays healthy.
func (o *outage) phaseAt(t time.Duration) Phase {
	for p := Phase(NumPhases - 1); p > PhaseWarmup; p-- {
		if t >= o.bounds[p] {
			return p
		}
	}
	return PhaseWarmup
}

// begin starts the fleet's next user call, on client j mod Clients.
func (s *sim) begin() {
	o := s.out
	j := o.next
	o.next++
	c := int32(j % len(s.clients))
	p, err := s.backOffFor(c)
	if err != nil {
		s.res.Err = err
		return
	}
	slot := s.slot()
	u := &o.calls[slot]
	u.backOff, u.client, u.attempt, u.phase = p, c, 0, o.phaseAt(s.now)
	s.res.Outage.Phases[u.phase].UserCalls++
	s.try(slot)
}

// backOffFor returns a free BackOff of client c, Reset, making one if all
// of its BackOffs are in use.
func (s *sim) backOffFor(c int32) (backoff.BackOff, error) {
	o := s.out
	if n := len(o.free[c]); n > 0 {
		p := o.free[c][n-1]
		o.free[c] = o.free[c][:n-1]
		p.Reset()
		return p, nil
	}
	p := s.cfg.NewBackOff()
	if p == nil {
		return nil, fmt.Errorf("%w: NewBackOff returned nil for client %d", ErrInvalidBackOff, c)
	}
	if v, ok := p.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidBackOff, err)
		}
	}
	if e, ok := p.(*backoff.ExponentialBackOff); ok {
		if o.seen[e] {
			return nil, fmt.Errorf("%w: NewBackOff returned the same *backoff.ExponentialBackOff twice; return a fresh one per call", ErrInvalidBackOff)
		}
		o.seen[e] = true
		e.Random = o.jitter[c].Float64
	}
	p.Reset()
	return p, nil
}

// slot returns a free user-call slot.
func (s *sim) slot() int32 {
	o := s.out
	if n := len(o.slots); n > 0 {
		i := o.slots[n-1]
		o.slots = o.slots[:n-1]
		return i
	}
	o.calls = append(o.calls, userCall{})
	return int32(len(o.calls) - 1)
}

// try makes the next attempt of the user call in slot: the client's
// guards are asked, outermost first, as a Policy's guard stages would ask
// them; if all admit it, the attempt is sent. A refusal ends the user
// call; an error an Allow marked as the call's own failure
// (guard.Failure) fails the attempt without sending it.
func (s *sim) try(slot int32) {
	o := s.out
	u := &o.calls[slot]
	u.attempt++
	gs := o.guards[u.client]
	if cap(u.permits) < len(gs) {
		u.permits = make([]guard.Permit, len(gs))
	}
	u.permits = u.permits[:len(gs)]
	for i, g := range gs {
		p, err := g.Allow(s.ctx, guard.Call{Attempt: int(u.attempt)})
		if err == nil {
			u.permits[i] = p
			continue
		}
		outer, refused := o.view.view(err)
		s.record(gs[:i], u.permits, outer)
		if refused {
			s.end(slot, false, true)
			return
		}
		s.failed(slot)
		return
	}
	s.res.Calls++
	s.res.ClientCalls[u.client]++
	s.count()
	s.res.Outage.Phases[o.phaseAt(s.now)].Calls++
	s.serve(slot)
}

// record tells gs, innermost first, how the attempt ended, as the guard
// stages of a Policy do when the call returns through them.
func (s *sim) record(gs []guard.Guard, permits []guard.Permit, err error) {
	for i := len(gs) - 1; i >= 0; i-- {
		gs[i].Record(permits[i], guard.Outcome{Err: err})
	}
}

// serve sends an attempt to the dependency, which answers it as its phase
// says when the attempt reaches it, one network delay later. The answer
// depends on nothing else, so it is decided now, and only its reaching
// the client, a second delay later, is an event.
func (s *sim) serve(slot int32) {
	arrive := sat(s.now, s.delay())
	ok := true
	switch s.out.phaseAt(arrive) {
	case PhaseDown:
		ok = false
	case PhaseDegraded:
		ok = s.out.server.Float64() >= s.cfg.Phases.DegradedFailures
	}
	s.q.push(event{at: sat(arrive, s.delay()), call: slot, kind: userReply, ok: ok})
}

// answer is an attempt's answer reaching its client: the guards learn
// of it, and the user call ends or retries.
func (s *sim) answer(e event) {
	u := &s.out.calls[e.call]
	var err error
	if !e.ok {
		err = ErrUnavailable
	}
	s.record(s.out.guards[u.client], u.permits, err)
	if e.ok {
		s.end(e.call, true, false)
		return
	}
	s.failed(e.call)
}

// failed decides what follows a failed attempt: the user call fails once
// it has made its tries or its BackOff says Stop; otherwise its retry is
// scheduled after the BackOff's wait.
func (s *sim) failed(slot int32) {
	u := &s.out.calls[slot]
	if int(u.attempt) >= s.cfg.Tries {
		s.end(slot, false, false)
		return
	}
	d := u.backOff.NextBackOff()
	switch {
	case d == backoff.Stop:
		s.end(slot, false, false)
		return
	case d < 0:
		s.res.Err = fmt.Errorf("%w: NextBackOff returned a negative wait (%v)", ErrInvalidBackOff, d)
		return
	}
	s.q.push(event{at: sat(s.now, d), call: slot, kind: userWake})
}

// end records how the user call in slot ended, and frees its slot and its
// BackOff.
func (s *sim) end(slot int32, ok, refused bool) {
	o := s.out
	u := &o.calls[slot]
	if !ok {
		c := &s.res.Outage.Phases[u.phase]
		c.UserFailed++
		if refused {
			c.Refused++
		}
	}
	o.free[u.client] = append(o.free[u.client], u.backOff)
	u.backOff = nil
	o.slots = append(o.slots, slot)
}

// finishOutage counts the user calls the horizon cut short as failed, and
// measures the phases' peaks and the recovery.
func (s *sim) finishOutage() {
	for i := range s.out.calls {
		if u := &s.out.calls[i]; u.backOff != nil {
			s.res.Outage.Phases[u.phase].UserFailed++
		}
	}
	w := s.cfg.Window
	for p := range s.res.Outage.Phases {
		first := int((s.out.bounds[p] + w - 1) / w) // the first window wholly inside
		last := min(int(s.out.bounds[p+1]/w), len(s.res.Load))
		for i := first; i < last; i++ {
			s.res.Outage.Phases[p].Peak = max(s.res.Outage.Phases[p].Peak, s.res.Load[i])
		}
	}
	s.res.Outage.Recovery, s.res.Outage.Recovered = recovery(s.res.Load, s.cfg.Window,
		s.out.bounds[PhaseHealthy], s.out.bounds[NumPhases], s.res.Outage.Base)
}
