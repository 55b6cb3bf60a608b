package herd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
)

// ErrInvalidBackOff is matched, with errors.Is, by the Result.Err of a
// simulation whose BackOff could not be used: NewBackOff returned nil or the
// same *backoff.ExponentialBackOff twice, a BackOff failed its own Validate,
// or NextBackOff returned a negative wait other than backoff.Stop; in the
// Outage scenario, also NewGuards returned a nil guard or a guard that
// fails its own Validate. These errors match backoff.ErrInvalidConfiguration
// too, as every error of a setting in this module does, but not
// ErrInvalidConfig.
var ErrInvalidBackOff error = invalidBackOff{}

// invalidBackOff is ErrInvalidBackOff.
type invalidBackOff struct{}

func (invalidBackOff) Error() string { return "herd: invalid BackOff" }

// Is reports whether target is backoff.ErrInvalidConfiguration.
func (invalidBackOff) Is(target error) bool { return target == backoff.ErrInvalidConfiguration }

// Simulate runs the fleet that cfg describes to the end, in virtual time,
// and returns what it measured. It never sleeps and starts no goroutine;
// its cost grows with the number of calls the fleet makes. The same cfg
// gives the same Result (see Config.NewBackOff for the BackOffs this
// holds for).
//
// Every client calls Reset on its BackOff before its first call and
// NextBackOff after each failed call, then waits that long, in virtual
// time, before it tries again. backoff.Stop makes the client give up, and
// so does reaching Config.MaxCalls. In the Outage scenario the same holds
// of each user call, which fails on reaching Config.Tries.
//
// A Config that Validate rejects gives a Result with Err set and nothing
// measured. It is safe to call Simulate from several goroutines at once,
// provided cfg.NewBackOff and cfg.NewGuards are. A guard that panics
// panics Simulate, on the goroutine that called it.
func Simulate(cfg Config) Result { return SimulateContext(context.Background(), cfg) }

// checkEvery is how many clients set up, or events processed, a simulation
// goes between two looks at its context.
const checkEvery = 1024

// SimulateContext is Simulate, stopped early when ctx is done. It looks at
// ctx before it starts and then every 1024 clients it sets up and every
// 1024 events it processes, so a large fleet stops within a moment of
// the cancellation. A stopped Result has Err set to context.Cause(ctx)
// (ctx.Err() unless a cause was given), and holds what was measured until
// then. A ctx that is never done, such as context.Background(), costs
// nothing.
func SimulateContext(ctx context.Context, cfg Config) Result {
	if err := cfg.Validate(); err != nil {
		return Result{Err: err, Scenario: cfg.Scenario, Clients: cfg.Clients}
	}
	cfg = cfg.withDefaults()
	if ctx.Err() != nil {
		return Result{Err: context.Cause(ctx), Scenario: cfg.Scenario, Clients: cfg.Clients, Window: cfg.Window}
	}
	s := &sim{
		ctx: ctx,
		cfg: cfg,
		res: Result{
			Scenario:    cfg.Scenario,
			Clients:     cfg.Clients,
			Window:      cfg.Window,
			ClientCalls: make([]int, cfg.Clients),
		},
		net: rand.New(rand.NewPCG(mix(cfg.Seed), mix(cfg.Seed^0x6a09e667f3bcc908))),
	}
	s.clk = virtualClock{s}
	s.loops, s.fired = newLoops(ctx), newFiredTimer()
	defer s.stopCallers()
	if cfg.Scenario == Overload {
		s.simulateOverload()
		return s.res
	}
	init := s.initFleet
	switch cfg.Scenario {
	case Outage:
		init = s.initOutage
	case Shed, Pushback:
		init = s.initShed
	}
	if err := init(); err != nil {
		s.res.Err = err
		return s.res
	}
	s.run()
	return s.res
}

// sim is the state of one simulation.
type sim struct {
	ctx context.Context // nil Done: never stopped early
	cfg Config
	res Result
	q   queue
	net *rand.Rand // network delays
	now time.Duration
	clk virtualClock

	// The retry loops: their callers, the one running, what is told of a
	// loop's end, the loops' context, done when the simulation ends, and
	// the fired timer the virtual clock's Timer returns.
	callers  []*caller
	current  *caller
	finished func(*caller)
	run1     func(*caller) error // the retry loop every caller runs
	loops    *loops
	fired    *clock.Timer

	retriers []*backoff.Retrier // OCC, Restart: each client's driver
	version  uint64             // OCC: the row's version
	window   int                // Restart: the window accepted counts
	accepted int                // Restart: connections accepted in window

	out  *outage     // Outage: the fleet's user calls and guards
	shed *shedServer // Shed and Pushback: the server
	ov   *overload   // Overload: the fleet's calls, its guards and the server
}

// errRejected is the error of a call the server of OCC or Restart turned
// down: a write whose version was stale, a connection over capacity.
var errRejected = errors.New("herd: call rejected")

// initFleet builds, for OCC and Restart, one BackOff per client, giving
// each of the library's exponential BackOffs its own seeded random source,
// the client's driver (a backoff.Retrier with the BackOff, at most
// MaxCalls attempts, on the virtual clock), and its caller.
func (s *sim) initFleet() error {
	seen := make(map[*backoff.ExponentialBackOff]bool)
	s.retriers = make([]*backoff.Retrier, s.cfg.Clients)
	s.finished, s.run1 = s.fleetDone, s.fleetRun
	for i := range s.cfg.Clients {
		if i%checkEvery == checkEvery-1 && s.stopped() {
			return context.Cause(s.ctx)
		}
		p, err := s.clientBackOff(i, seen)
		if err != nil {
			return err
		}
		s.retriers[i] = backoff.NewRetrier(backoff.WithBackOff(p), backoff.WithMaxTries(uint(s.cfg.MaxCalls)),
			backoff.WithMaxElapsedTime(0), backoff.WithClock(s.clk))
		if err := s.retriers[i].Validate(); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidBackOff, err)
		}
		c := s.newCaller(s.fleetAttempt)
		c.client = int32(i)
	}
	return nil
}

// fleetRun is the retry loop of a client of OCC or Restart: its driver,
// until one attempt succeeds.
func (s *sim) fleetRun(c *caller) error {
	return s.retriers[c.client].DoErr(s.loops, c.attempt)
}

// fleetAttempt is one attempt of a client of OCC, Restart, Shed or
// Pushback: in OCC a read of the row's version, then a write carrying it;
// in Restart a connection; in Shed and Pushback a request. It waits, in
// virtual time, for the answer. (In OCC the write goes out as the read's
// answer arrives, without the caller: see readReply.)
func (s *sim) fleetAttempt(c *caller) error {
	switch {
	case s.cfg.Scenario == OCC:
		s.send(event{call: c.id, kind: readArrive})
	case s.shed != nil:
		s.send(event{call: c.id, kind: shedArrive})
	default:
		s.send(event{call: c.id, kind: callArrive})
	}
	if !c.wait() {
		return context.Cause(s.loops)
	}
	switch {
	case c.ok:
		return nil
	case s.shed != nil:
		return s.shed.refused(c)
	}
	return errRejected
}

// fleetDone records how a client's retry loop ended: a success, or giving
// up (MaxCalls reached, or the BackOff's Stop). A loop the driver found
// misconfigured, such as by a negative wait, ends the simulation.
func (s *sim) fleetDone(c *caller) {
	switch {
	case c.err == nil:
		s.res.Succeeded++
		s.res.Completion = s.now
	case is(c.err, backoff.ErrInvalidConfiguration):
		s.res.Err = fmt.Errorf("%w: %w", ErrInvalidBackOff, c.err)
	default:
		s.res.GaveUp++
	}
}

// is is errors.Is(err, target) for the error of a retry loop, without the
// allocation of a *backoff.Error's Unwrap, which makes the slice of its
// Cause and LastErr that it returns: it looks into them itself.
func is(err, target error) bool {
	if e, ok := err.(*backoff.Error); ok {
		return errors.Is(e.Cause, target) || errors.Is(e.LastErr, target)
	}
	return errors.Is(err, target)
}

// stopped reports whether the simulation's context is done.
func (s *sim) stopped() bool {
	if s.ctx.Done() == nil {
		return false
	}
	return s.ctx.Err() != nil
}

// run starts every client at time 0 (in Outage, the first user call) and
// processes events until every client finished (in Outage, every user
// call), the horizon is reached, a BackOff misbehaves, or the context is
// done.
func (s *sim) run() {
	s.q.events = make([]event, 0, 2*s.cfg.Clients)
	if s.out == nil {
		for i := range s.cfg.Clients {
			s.q.push(event{at: 0, call: int32(i), kind: begin})
		}
	}
	for n := 1; s.res.Err == nil; n++ {
		if n%checkEvery == 0 && s.stopped() {
			s.res.Err = context.Cause(s.ctx)
			break
		}
		e, ok := s.next()
		if !ok {
			break
		}
		if e.at > s.cfg.Horizon {
			if s.out == nil {
				s.res.Completion = s.cfg.Horizon
			}
			break
		}
		s.now = e.at
		switch e.kind {
		case begin:
			s.start(s.callers[e.call], s.run1)
		case readArrive:
			s.send(event{call: e.call, kind: readReply, version: s.version})
		case readReply:
			s.send(event{call: e.call, kind: callArrive, version: e.version})
		case callArrive:
			s.arrive(e)
		case reply:
			c := s.callers[e.call]
			c.ok = e.ok
			s.step(c)
		case wakeUp:
			s.step(s.callers[e.call])
		case userBegin:
			s.beginUserCall()
		default:
			s.shedEvent(e)
		}
	}
	if s.out != nil {
		s.finishOutage()
	}
	for _, n := range s.res.Load {
		s.res.PeakLoad = max(s.res.PeakLoad, n)
	}
}

// next returns the next event, false when there is none. In Outage, the
// fleet's next user call is not queued: it comes from the fleet's
// arrivals, before the queued events of the same instant.
func (s *sim) next() (event, bool) {
	if o := s.out; o != nil && o.more {
		if at, ok := s.q.peek(); !ok || o.nextAt <= at {
			return event{at: o.nextAt, kind: userBegin}, true
		}
	}
	if _, ok := s.q.peek(); !ok {
		return event{}, false
	}
	return s.q.pop(), true
}

// arrive is a call reaching the server: it is counted, and answered.
func (s *sim) arrive(e event) {
	client := s.callers[e.call].client
	s.res.Calls++
	s.res.ClientCalls[client]++
	w := s.count()

	var ok bool
	switch s.cfg.Scenario {
	case OCC:
		ok = e.version == s.version
		if ok {
			s.version++
		}
	case Restart:
		if w != s.window {
			s.window, s.accepted = w, 0
		}
		ok = s.accepted < s.cfg.Capacity
		if ok {
			s.accepted++
		}
	}
	s.send(event{call: e.call, kind: reply, ok: ok})
}

// count adds a call at the current time to the load timeline, and
// returns its window.
func (s *sim) count() int {
	w := int(s.now / s.cfg.Window)
	for len(s.res.Load) <= w {
		s.res.Load = append(s.res.Load, 0)
	}
	s.res.Load[w]++
	return w
}

// send schedules e after one network delay.
func (s *sim) send(e event) {
	e.at = sat(s.now, s.delay())
	s.q.push(e)
}

// delay draws one one-way network delay, |Normal(Mean, StdDev)|, from
// the network's source.
func (s *sim) delay() time.Duration { return s.cfg.Delay.Draw(s.net.NormFloat64) }

// sat returns t+d, saturating at the largest Duration.
func sat(t, d time.Duration) time.Duration {
	if d > math.MaxInt64-t {
		return math.MaxInt64
	}
	return t + d
}

// mix is SplitMix64's finalizer: it spreads nearby seeds apart.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
