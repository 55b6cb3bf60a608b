package herd

import (
	"context"
	"iter"
)

// A caller runs one retry loop at a time, the library's own driver (a
// backoff.Retrier, or a policy.Policy's stages), as a coroutine of the
// simulation: the loop runs on a goroutine of its own, but only while the
// simulation has handed it control, and it hands control back whenever it
// would wait, for an answer to its attempt or for the timer of its
// backoff. So the loop's decisions (whether to retry, how long to wait,
// what a guard's refusal ends) are the driver's, made by its code, while
// the simulation, one event at a time, stays deterministic: exactly one of
// the simulation and its callers runs at any moment.
//
// Control passes through an iter.Pull coroutine, a switch of a few tens
// of nanoseconds with no scheduler in between, which is what makes a run
// of millions of calls take a second.
type caller struct {
	id     int32
	resume func() (struct{}, bool)
	stop   func()
	yield  func(struct{}) bool

	// run is the retry loop to make next, set before an idle caller is
	// resumed; err is how the last one ended. attempt is the function the
	// loop retries, made once.
	run     func(*caller) error
	err     error
	attempt func(context.Context) error

	// The answer to the attempt that waits, set by its event.
	// refused says the Overload server refused the call, rather than
	// answered it or let it time out.
	refused bool
	ok      bool

	// What the scenario keeps of the loop in progress.
	client  int32
	phase   Phase // Outage: the phase its user call started in
	start   int32 // Outage: the window its user call started in; Overload: its call's slot
	busy    bool  // it runs a retry loop
	waiting bool  // it waits for an event
}

// newCaller makes a caller, idle, whose loops retry attempt.
func (s *sim) newCaller(attempt func(*caller) error) *caller {
	c := &caller{id: int32(len(s.callers))}
	c.attempt = func(context.Context) error { return attempt(c) }
	c.resume, c.stop = iter.Pull(func(yield func(struct{}) bool) {
		c.yield = yield
		for yield(struct{}{}) {
			c.err = c.run(c)
		}
	})
	s.callers = append(s.callers, c)
	c.resume() // to its first idle point
	return c
}

// start makes c run the retry loop run, until it first waits or is over.
func (s *sim) start(c *caller, run func(*caller) error) {
	c.run, c.busy, c.err = run, true, nil
	s.step(c)
}

// step resumes c until it waits or its retry loop is over, and then tells
// the scenario's finished of the loop's end.
func (s *sim) step(c *caller) {
	s.current = c
	c.resume()
	s.current = nil
	if c.busy && !c.waiting {
		c.busy = false
		s.finished(c)
	}
}

// wait hands control back to the simulation until the event c waits for,
// which the caller must have scheduled. It returns false if the
// simulation is over instead: the caller's loop must then end at once.
func (c *caller) wait() bool {
	c.waiting = true
	ok := c.yield(struct{}{})
	c.waiting = false
	return ok
}

// stopCallers ends every caller's coroutine: a retry loop still waiting
// sees its wait return false and its context (s.loops) done, and ends.
func (s *sim) stopCallers() {
	if s.loops != nil {
		s.loops.end()
	}
	for _, c := range s.callers {
		c.stop()
	}
}

// pop removes the last element of *stack and returns it, or returns false
// if the stack is empty: the idle callers, and the free call slots, are
// stacks.
func pop[T any](stack *[]T) (T, bool) {
	n := len(*stack)
	if n == 0 {
		var zero T
		return zero, false
	}
	v := (*stack)[n-1]
	*stack = (*stack)[:n-1]
	return v, true
}
