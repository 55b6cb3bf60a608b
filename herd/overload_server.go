package herd

// The Overload scenario's server: its queue, its workers and its refusals.

import "time"

// arriveOverload is a call reaching the server: a free worker serves it,
// or it waits its turn.
func (s *sim) arriveOverload(j overloadJob) {
	o := s.ov
	if o.busy < o.workers && o.head == len(o.fifo) {
		s.serveOverload(j)
		return
	}
	if lim := o.srv.Queue.Limit; lim > 0 && len(o.fifo)-o.head >= lim {
		s.refuseOverload(j)
		return
	}
	o.fifo = append(o.fifo, j)
}

// refuseOverload answers the call j with the server's refusal, if its
// client still waits: the answer reaches it a network delay later.
func (s *sim) refuseOverload(j overloadJob) {
	o := s.ov
	if u := &o.calls[j.slot]; u.gen == j.gen && u.waiting {
		s.q.push(event{at: sat(s.now, s.delay()), call: j.slot, version: j.gen, kind: overloadRefused})
	}
}

// refusedOverload is the server's refusal reaching the client of the
// call in slot, generation gen: it ends the call, as a failure its
// guards are told of, unless the client gave it up first.
func (s *sim) refusedOverload(slot int32, gen uint64) {
	o := s.ov
	u := &o.calls[slot]
	if u.gen != gen || !u.waiting {
		return
	}
	if u.caller != nil {
		u.caller.refused = true
	}
	s.endOverload(slot, gen, false, true)
}

// expired reports whether the call j cannot be answered before its
// client gives it up, or has been given up already.
func (s *sim) expired(j overloadJob) bool {
	o := s.ov
	u := &o.calls[j.slot]
	return u.gen != j.gen || !u.waiting || s.now+o.srv.Service.Mean+s.cfg.Delay.Mean > u.start+o.srv.Timeout
}

// serveOverload puts a worker on the call j, for a drawn service time.
func (s *sim) serveOverload(j overloadJob) {
	o := s.ov
	o.busy++
	s.q.push(event{at: sat(s.now, o.serviceTime()), call: j.slot, version: j.gen, kind: overloadServed})
}

// serviceTime draws one service time, of the Server's Tail.
func (o *overload) serviceTime() time.Duration {
	return o.srv.drawService(o.service)
}

// servedOverload is a worker done with a call: the answer goes back, and
// the worker takes the next call waiting, if it is still in service.
func (s *sim) servedOverload(e event) {
	o := s.ov
	s.q.push(event{at: sat(s.now, s.delay()), call: e.call, version: e.version, kind: overloadAnswer})
	o.busy--
	s.startWorkers()
}

// startWorkers gives the calls waiting to the workers in service that are
// free.
func (s *sim) startWorkers() {
	o := s.ov
	for o.busy < o.workers && o.head < len(o.fifo) {
		var j overloadJob
		if q := o.srv.Queue; q.LIFO && len(o.fifo)-o.head > o.workers {
			j = o.fifo[len(o.fifo)-1]
			o.fifo = o.fifo[:len(o.fifo)-1]
		} else {
			j = o.fifo[o.head]
			o.head++
		}
		if o.srv.Queue.DropExpired && s.expired(j) {
			s.refuseOverload(j)
			continue
		}
		s.serveOverload(j)
	}
	if o.head == len(o.fifo) {
		o.fifo, o.head = o.fifo[:0], 0
	} else if o.head > 4096 && 2*o.head > len(o.fifo) {
		o.fifo, o.head = append(o.fifo[:0], o.fifo[o.head:]...), 0
	}
}
