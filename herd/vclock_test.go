package herd

import (
	"context"
	"testing"
	"time"
)

// The virtual clock tells the simulation's time, and refuses, loudly, to
// set a timer that nothing would ever fire: every timer but the one a
// retry loop running on a caller waits on.
func TestVirtualClock(t *testing.T) {
	t.Parallel()
	s := &sim{now: 1500 * time.Millisecond}
	c := virtualClock{s}
	if got := c.Now(); !got.Equal(epoch.Add(1500 * time.Millisecond)) {
		t.Fatalf("Now = %v, want the epoch plus 1.5s", got)
	}
	start := c.Now()
	s.now += 250 * time.Millisecond
	if got := c.Since(start); got != 250*time.Millisecond {
		t.Fatalf("Since = %v, want 250ms", got)
	}
	if got := c.Until(start.Add(time.Second)); got != 750*time.Millisecond {
		t.Fatalf("Until = %v, want 750ms", got)
	}
	timers := map[string]func(){
		"After":              func() { c.After(time.Second) },
		"AfterFunc":          func() { c.AfterFunc(time.Second, func() {}) },
		"Sleep":              func() { c.Sleep(time.Second) },
		"Tick":               func() { c.Tick(time.Second) },
		"Ticker":             func() { c.Ticker(time.Second) },
		"Timer off a caller": func() { c.Timer(time.Second) },
		"WithDeadline":       func() { c.WithDeadline(context.Background(), c.Now()) },
		"WithTimeout":        func() { c.WithTimeout(context.Background(), time.Second) },
	}
	for name, call := range timers {
		func() {
			defer func() {
				if r := recover(); r != noTimers {
					t.Errorf("%s: recovered %v, want the panic %q", name, r, noTimers)
				}
			}()
			call()
		}()
	}
}

// A Timer made on a caller hands control back to the simulation, which
// resumes the caller at the virtual instant the timer is due, with the
// timer fired: the driver's wait takes virtual time and no real time.
func TestVirtualClockTimerOnACaller(t *testing.T) {
	t.Parallel()
	s := &sim{cfg: Config{Horizon: time.Hour}}
	s.clk = virtualClock{s}
	s.loops, s.fired = newLoops(context.Background()), newFiredTimer()
	defer s.stopCallers()
	var woke []time.Duration
	var ends int
	s.finished = func(*caller) { ends++ }
	c := s.newCaller(func(*caller) error { return nil })
	s.start(c, func(c *caller) error {
		for _, d := range []time.Duration{3 * time.Second, time.Millisecond} {
			tm := s.clk.Timer(d)
			<-tm.C
			woke = append(woke, s.now)
		}
		return nil
	})
	if len(woke) != 0 || ends != 0 || s.q.len() != 1 {
		t.Fatalf("after the start: woke %v, %d ends, %d events; want the caller waiting on its first timer", woke, ends, s.q.len())
	}
	for s.q.len() > 0 {
		e := s.q.pop()
		s.now = e.at
		s.step(s.callers[e.call])
	}
	if want := []time.Duration{3 * time.Second, 3*time.Second + time.Millisecond}; len(woke) != 2 || woke[0] != want[0] || woke[1] != want[1] || ends != 1 {
		t.Fatalf("woke at %v with %d ends; want %v and 1", woke, ends, want)
	}
}
