package herd

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"
)

// epoch is the instant virtual time 0 stands for on a virtualClock.
var epoch = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// virtualClock is a simulation's virtual time as a clock.Clock, for the
// retry loops the simulation drives and for the guards of the Outage
// scenario: Now is epoch plus the time of the event being processed.
//
// Its one timer is the driver's: Timer, called by a retry loop running on
// a caller of the simulation (see caller), schedules the caller's wake-up
// at the virtual instant the timer is due and hands control back to the
// simulation; when that instant comes, the caller resumes with the timer
// fired. This is how the driver's own wait, a Timer and a select on its
// channel, takes virtual time. Called anywhere else, Timer panics, and so
// do the other timers, tickers and sleeps: the simulation has no goroutine
// to fire them.
//
// A *clock.Mock set before each event would tell the time as well, but its
// Set sleeps a millisecond of real time for the goroutines its timers may
// have woken, which makes a simulation of a million calls take a quarter
// of an hour.
type virtualClock struct{ s *sim }

var _ clock.Clock = virtualClock{}

func (c virtualClock) Now() time.Time                  { return epoch.Add(c.s.now) }
func (c virtualClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
func (c virtualClock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }

// Timer waits d of virtual time, on the caller that runs, and returns a
// timer that has fired. If the simulation ends meanwhile, it returns at
// once, fired too: the loop then finds its context done.
func (c virtualClock) Timer(d time.Duration) *clock.Timer {
	s := c.s
	cl := s.current
	if cl == nil {
		panic(noTimers)
	}
	s.q.push(event{at: sat(s.now, max(d, 0)), call: cl.id, kind: wakeUp})
	cl.wait()
	select {
	case <-cl.wake: // left by a wait that ended with its context
	default:
	}
	cl.wake <- c.Now()
	return cl.timer
}

// noTimers is the panic of the timers a virtualClock does not have.
const noTimers = "herd: the simulation's clock tells the time (Now, Since, Until) and times the retry loops' waits; nothing else may set timers, tickers or sleep on it"

func (virtualClock) After(time.Duration) <-chan time.Time         { panic(noTimers) }
func (virtualClock) AfterFunc(time.Duration, func()) *clock.Timer { panic(noTimers) }
func (virtualClock) Sleep(time.Duration)                          { panic(noTimers) }
func (virtualClock) Tick(time.Duration) <-chan time.Time          { panic(noTimers) }
func (virtualClock) Ticker(time.Duration) *clock.Ticker           { panic(noTimers) }
func (virtualClock) WithDeadline(context.Context, time.Time) (context.Context, context.CancelFunc) {
	panic(noTimers)
}
func (virtualClock) WithTimeout(context.Context, time.Duration) (context.Context, context.CancelFunc) {
	panic(noTimers)
}
