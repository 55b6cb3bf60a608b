package herd

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/httpretry"
	"github.com/herdsafe/backoff/httpshed"
)

// ShedServiceTime is how long the server of the Shed and Pushback
// scenarios takes to serve a request it admitted: with Capacity requests at
// once (10 by default), it serves 1,000 requests a second, as many as the
// Restart server accepts.
const ShedServiceTime = 10 * time.Millisecond

// The events of the Shed and Pushback scenarios, after those of queue.go.
const (
	shedArrive kind = 64 + iota // a request reaches the server
	shedServed                  // the server is done with a request it admitted
	shedReply                   // the server's answer reaches its client
)

// shedServer is the server of the Shed and Pushback scenarios: the
// Shedder of package httpshed over a bulkhead of Capacity slots, driven as
// its Handler drives them, but in virtual time: the bulkhead's Allow when a
// request arrives, its Record when the request is served, and for a
// refusal the Retry-After the Shedder tells. Each request it admits holds a slot for
// ShedServiceTime; each it refuses is answered at once with a 503, which in
// Pushback carries the Retry-After the Shedder computes from the
// bulkhead's state. A client told a Retry-After waits it as a Transport of
// package httpretry does: spread by httpretry.RetryAfterWait, the BackOff
// started over after it (as the core's driver does after a named wait),
// and not at all if it is longer than httpretry.DefaultMaxRetryAfter (the
// client gives up).
type shedServer struct {
	shedder    *httpshed.Shedder
	slots      guard.Guard
	retryAfter bool            // Pushback: the 503s carry Retry-After
	told       []time.Duration // per client: the Retry-After of its last 503, 0 for none
	spread     []*rand.Rand    // per client: the draws of its Transport's spread
}

// initShed builds the clients' BackOffs and the server of a Shed or
// Pushback simulation.
func (s *sim) initShed() error {
	if err := s.initBackOffs(); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(mix(s.cfg.Seed^0x510e527fade682d1), mix(s.cfg.Seed^0x9b05688c2b3e6c1f)))
	slots := bulkhead.New(s.cfg.Capacity)
	sh := &shedServer{
		shedder:    httpshed.New(slots, httpshed.WithRandom(r.Float64)),
		slots:      slots,
		retryAfter: s.cfg.Scenario == Pushback,
		told:       make([]time.Duration, len(s.clients)),
		spread:     make([]*rand.Rand, len(s.clients)),
	}
	if err := sh.shedder.Validate(); err != nil {
		return fmt.Errorf("%w: Capacity: %w", ErrInvalidConfig, err)
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
		s.shedArrive(e.client)
	case shedServed:
		s.shed.slots.Record(guard.Permit{}, guard.Outcome{})
		s.send(event{client: e.client, kind: shedReply, ok: true})
	case shedReply:
		s.shedReply(e)
	}
}

// shedArrive is a request reaching the server: it is counted, and admitted
// or refused as the Shedder's Handler admits or refuses it.
func (s *sim) shedArrive(c int32) {
	s.res.Calls++
	s.res.ClientCalls[c]++
	s.count()
	sh := s.shed
	_, err := sh.slots.Allow(s.ctx, guard.Call{Attempt: 1})
	if err == nil {
		// Admitted: the slot is held until shedServed. (A bulkhead's
		// Permit is the zero Permit.)
		s.q.push(event{at: sat(s.now, ShedServiceTime), client: c, kind: shedServed})
		return
	}
	sh.told[c] = 0
	if sh.retryAfter {
		sh.told[c] = sh.shedder.RetryAfter(err)
	}
	s.send(event{client: c, kind: shedReply})
}

// shedReply is the server's answer reaching its client: done, or wait what
// the server said, or back off.
func (s *sim) shedReply(e event) {
	told := s.shed.told[e.client]
	switch {
	case e.ok || told == 0 || s.res.ClientCalls[e.client] >= s.cfg.MaxCalls:
		s.reply(event{client: e.client, ok: e.ok}) // as any other scenario's client
	case told > httpretry.DefaultMaxRetryAfter:
		s.finish(false)
	default:
		s.clients[e.client].backOff.Reset()
		wait := httpretry.RetryAfterWait(told, s.shed.spread[e.client].Float64())
		s.q.push(event{at: sat(s.now, wait), client: e.client, kind: wake})
	}
}
