package herd

import (
	"errors"
	"math/rand/v2"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/httpretry"
	"github.com/herdsafe/backoff/httpshed"
	"github.com/herdsafe/backoff/internal/setting"
)

// ShedServiceTime is how long the server of the Shed and Pushback
// scenarios takes to serve a request it admitted: with Capacity requests at
// once (10 by default), it serves 1,000 requests a second, as many as the
// Restart server accepts.
const ShedServiceTime = 10 * time.Millisecond

// The events of the Shed and Pushback scenarios, after those of queue.go;
// the server's answer is a reply.
const (
	shedArrive kind = 64 + iota // a request reaches the server
	shedServed                  // the server is done with a request it admitted
)

// shedServer is the server of the Shed and Pushback scenarios: the
// Shedder of package httpshed over a bulkhead of Capacity slots, driven as
// its Handler drives them, but in virtual time: the bulkhead's Allow when a
// request arrives, its Record when the request is served, and for a
// refusal the Retry-After the Shedder tells. Each request it admits holds
// a slot for ShedServiceTime; each it refuses is answered at once with a
// 503, which in Pushback carries the Retry-After the Shedder computes from
// the bulkhead's state. A client told a Retry-After waits it as a
// Transport of package httpretry does: spread by httpretry.RetryAfterWait,
// and not at all if it is longer than httpretry.DefaultMaxRetryAfter (the
// client gives up). Its attempt then fails with a backoff.RetryAfter
// error of that wait, which its driver waits, starting its BackOff over,
// as the core's driver does after any named wait.
type shedServer struct {
	shedder    *httpshed.Shedder
	slots      guard.Guard
	retryAfter bool            // Pushback: the 503s carry Retry-After
	told       []time.Duration // per client: the Retry-After of its last 503, 0 for none
	spread     []*rand.Rand    // per client: the draws of its Transport's spread
}

// errShed is the error of a request the server shed.
var errShed = errors.New("herd: 503 Service Unavailable")

// initShed builds the clients' drivers and the server of a Shed or
// Pushback simulation.
func (s *sim) initShed() error {
	if err := s.initFleet(); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(mix(s.cfg.Seed^0x510e527fade682d1), mix(s.cfg.Seed^0x9b05688c2b3e6c1f)))
	slots := bulkhead.New(s.cfg.Capacity)
	sh := &shedServer{
		shedder:    httpshed.New(slots, httpshed.WithRandom(r.Float64)),
		slots:      slots,
		retryAfter: s.cfg.Scenario == Pushback,
		told:       make([]time.Duration, s.cfg.Clients),
		spread:     make([]*rand.Rand, s.cfg.Clients),
	}
	if err := sh.shedder.Validate(); err != nil {
		return invalid("Capacity: %s", setting.Reason(err))
	}
	for i := range sh.spread {
		sh.spread[i] = rand.New(rand.NewPCG(mix(s.cfg.Seed^0x1f83d9abfb41bd6b), mix(uint64(i)+1)))
	}
	s.shed = sh
	return nil
}

// shedEvent processes an event of the Shed and Pushback scenarios.
func (s *sim) shedEvent(e event) {
	switch e.kind {
	case shedArrive:
		s.shedArrive(e.call)
	case shedServed:
		s.shed.slots.Record(guard.Permit{}, guard.Outcome{})
		s.send(event{call: e.call, kind: reply, ok: true})
	}
}

// shedArrive is a request reaching the server: it is counted, and admitted
// or refused as the Shedder's Handler admits or refuses it.
func (s *sim) shedArrive(call int32) {
	c := s.callers[call].client
	s.res.Calls++
	s.res.ClientCalls[c]++
	s.count()
	sh := s.shed
	_, err := sh.slots.Allow(s.ctx, guard.Call{Attempt: 1})
	if err == nil {
		// Admitted: the slot is held until shedServed. (A bulkhead's
		// Permit is the zero Permit.)
		s.q.push(event{at: sat(s.now, ShedServiceTime), call: call, kind: shedServed})
		return
	}
	sh.told[c] = 0
	if sh.retryAfter {
		sh.told[c] = sh.shedder.RetryAfter(err)
	}
	s.send(event{call: call, kind: reply})
}

// refused is the error of c's attempt that the server shed, as the
// client's Transport makes it: a bare 503, which the driver backs off
// from; a Retry-After the client waits, spread, as a named wait; or one
// too long to wait, on which the client gives up.
func (sh *shedServer) refused(c *caller) error {
	told := sh.told[c.client]
	switch {
	case told == 0:
		return errShed
	case told > httpretry.DefaultMaxRetryAfter:
		return backoff.Permanent(errShed)
	}
	return backoff.RetryAfter(httpretry.RetryAfterWait(told, sh.spread[c.client].Float64()), errShed)
}
