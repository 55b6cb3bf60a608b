package herd

import (
	"context"
	"math"
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
// simulation; when that instant comes, the caller resumes, and Timer
// returns a timer that has fired (the simulation's one such timer, whose
// channel is closed). This is how the driver's own wait, a Timer and a
// select on its channel, takes virtual time, with no channel operation
// but the select's. Called anywhere else, Timer panics, and so
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
	return s.fired
}

// newFiredTimer returns a timer that has fired, for good: its channel is
// closed, so that every receive from it succeeds at once, with the zero
// Time, which the driver does not read. Stopping it does nothing.
func newFiredTimer() *clock.Timer {
	t := clock.New().Timer(math.MaxInt64)
	t.Stop()
	ch := make(chan time.Time)
	close(ch)
	t.C = ch
	return t
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
