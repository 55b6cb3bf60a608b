package herd

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/policy"
)

// ErrUnavailable is the error of a call that the Outage scenario's
// dependency failed, as the client's guards are told of it in
// guard.Outcome.Err: every call while it is down, a fraction of them
// while it is degraded.
var ErrUnavailable = errors.New("herd: dependency unavailable")

// outage is the state of an Outage simulation: every client's Policy, the
// fleet's arrivals, and the user calls in flight, each on a caller.
type outage struct {
	policies []*policy.Policy // per client
	server   *rand.Rand       // which calls fail while degraded
	idle     []*caller        // callers with no user call

	bounds [NumPhases + 1]time.Duration // the phases' starts, and their end

	// The arrivals: the fleet's next user call, when it starts and on
	// which client, and whether there is one before the end of the phases.
	even       bool
	interval   float64    // Even: ns between two user calls of the fleet
	mean       float64    // Poisson: the mean ns between two user calls
	arrivals   *rand.Rand // Poisson: the gaps and the clients
	at         float64    // Poisson: the start of the next user call, in ns
	next       int        // the number of the next user call
	nextAt     time.Duration
	nextClient int32
	more       bool

	// Per window of the phases, the user calls started in it, and those
	// of them that succeeded.
	started, succeeded []int32
}

// initOutage builds every client's Policy, a retry stage and its guards,
// and the rest of the state of an Outage simulation.
func (s *sim) initOutage() error {
	n := s.cfg.Clients
	o := &outage{
		policies: make([]*policy.Policy, n),
		server:   rand.New(rand.NewPCG(mix(s.cfg.Seed^0xbb67ae8584caa73b), mix(s.cfg.Seed^0x3c6ef372fe94f82b))),
		bounds:   s.cfg.Phases.starts(),
		even:     s.cfg.Arrivals == Even,
		interval: float64(time.Second) / (float64(n) * s.cfg.Rate),
		arrivals: rand.New(rand.NewPCG(mix(s.cfg.Seed^0x510e527fade682d1), mix(s.cfg.Seed^0x9b05688c2b3e6c1f))),
	}
	o.mean = o.interval
	windows := int(o.bounds[NumPhases]/s.cfg.Window) + 1
	o.started, o.succeeded = make([]int32, windows), make([]int32, windows)
	s.out = o
	s.finished, s.run1 = s.outageDone, s.userRun
	s.res.Outage.Base = float64(n) * s.cfg.Rate * s.cfg.Window.Seconds()
	seen := make(map[*backoff.ExponentialBackOff]bool)
	for c := range n {
		if c%checkEvery == checkEvery-1 && s.stopped() {
			return context.Cause(s.ctx)
		}
		b, err := s.clientBackOff(c, seen)
		if err != nil {
			return err
		}
		stages := []policy.Stage{policy.Retry(backoff.WithBackOff(b), backoff.WithMaxTries(uint(s.cfg.Tries)), backoff.WithClock(s.clk))}
		if s.cfg.NewGuards != nil {
			for i, g := range s.clientGuards(c) {
				if err := checkGuard(g, i, c); err != nil {
					return err
				}
				stages = append(stages, policy.Guard(g))
			}
		}
		o.policies[c] = policy.New(stages...)
	}
	s.arrival()
	return nil
}

// arrival draws the fleet's next user call: when it starts, and on which
// client. Even arrivals are evenly spaced, on the clients in turn; Poisson
// arrivals are the fleet's Poisson process, each user call on a client
// drawn at random, which is every client's own Poisson process at Rate.
func (s *sim) arrival() {
	o := s.out
	if o.even {
		o.nextAt = time.Duration(float64(o.next) * o.interval)
		o.nextClient = int32(o.next % s.cfg.Clients)
	} else {
		o.at += o.arrivals.ExpFloat64() * o.mean
		o.nextAt = time.Duration(min(o.at, float64(s.cfg.Horizon)+1))
		o.nextClient = int32(o.arrivals.IntN(s.cfg.Clients))
	}
	o.more = o.nextAt < o.bounds[NumPhases]
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

// beginUserCall starts the fleet's next user call on an idle caller: the
// Policy of its client runs it.
func (s *sim) beginUserCall() {
	o := s.out
	c, ok := pop(&o.idle)
	if !ok {
		c = s.newCaller(s.userAttempt)
	}
	c.client, c.phase, c.start = o.nextClient, o.phaseAt(s.now), int32(s.now/s.cfg.Window)
	s.res.Outage.Phases[c.phase].UserCalls++
	o.started[c.start]++
	o.next++
	s.arrival()
	s.start(c, s.run1)
}

// userRun is a user call: its client's Policy, around its attempts.
func (s *sim) userRun(c *caller) error {
	return s.out.policies[c.client].DoErr(s.loops, c.attempt)
}

// userAttempt is one attempt of a user call, which the client's guards
// admitted: it is sent to the dependency, which answers it as its phase
// says when the attempt reaches it, one network delay later. The answer
// depends on nothing else, so it is decided now, and only its reaching
// the client, a second delay later, is an event, which the attempt waits
// for.
func (s *sim) userAttempt(c *caller) error {
	o := s.out
	s.res.Calls++
	s.res.ClientCalls[c.client]++
	s.count()
	s.res.Outage.Phases[o.phaseAt(s.now)].Calls++
	arrive := sat(s.now, s.delay())
	ok := true
	switch o.phaseAt(arrive) {
	case PhaseDown:
		ok = false
	case PhaseDegraded:
		ok = o.server.Float64() >= s.cfg.Phases.DegradedFailures
	}
	s.q.push(event{at: sat(arrive, s.delay()), call: c.id, kind: reply, ok: ok})
	if !c.wait() {
		return context.Cause(s.loops)
	}
	if c.ok {
		return nil
	}
	return ErrUnavailable
}

// outageDone records how a user call ended, and makes its caller idle. A
// call the driver found misconfigured, such as by a negative wait, ends
// the simulation.
func (s *sim) outageDone(c *caller) {
	o := s.out
	switch {
	case c.err == nil:
		o.succeeded[c.start]++
	case is(c.err, backoff.ErrRefused):
		p := &s.res.Outage.Phases[c.phase]
		p.UserFailed++
		p.Refused++
	case is(c.err, backoff.ErrInvalidConfiguration):
		s.res.Err = fmt.Errorf("%w: %w", ErrInvalidBackOff, c.err)
	default:
		s.res.Outage.Phases[c.phase].UserFailed++
	}
	o.idle = append(o.idle, c)
}

// finishOutage counts the user calls the horizon cut short as failed, and
// measures the phases' peaks and the recoveries.
func (s *sim) finishOutage() {
	for _, c := range s.callers {
		if c.busy {
			s.res.Outage.Phases[c.phase].UserFailed++
		}
	}
	w := s.cfg.Window
	b := s.out.bounds
	for p := range s.res.Outage.Phases {
		first := int((b[p] + w - 1) / w) // the first window wholly inside
		last := min(int(b[p+1]/w), len(s.res.Load))
		for i := first; i < last; i++ {
			s.res.Outage.Phases[p].Peak = max(s.res.Outage.Phases[p].Peak, s.res.Load[i])
		}
	}
	o := &s.res.Outage
	o.Recovery, o.Recovered = loadRecovery(s.res.Load, w, b[PhaseHealthy], b[NumPhases], o.Base)
	o.SuccessRecovery, o.SuccessRecovered = successRecovery(s.out.started, s.out.succeeded, w, b[PhaseHealthy], b[NumPhases])
}
