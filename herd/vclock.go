package herd

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"
)

// epoch is the instant virtual time 0 stands for on a virtualClock.
var epoch = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// virtualClock is a simulation's virtual time as a clock.Clock, for the
// guards of the Outage scenario: Now is epoch plus the time of the event
// being processed. It only tells the time: the simulation has no
// goroutine to fire a timer or wake a sleeper, so those methods panic
// rather than hand out a timer that would never fire.
//
// A *clock.Mock set before each guard call would do the same, but its Set
// sleeps a millisecond of real time for the goroutines its timers may
// have woken, which makes a simulation of a million calls take a quarter
// of an hour.
type virtualClock struct{ now *time.Duration }

var _ clock.Clock = virtualClock{}

func (c virtualClock) Now() time.Time                  { return epoch.Add(*c.now) }
func (c virtualClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
func (c virtualClock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }

// noTimers is the panic of the methods a virtualClock does not have.
const noTimers = "herd: the simulation's clock only tells the time (Now, Since, Until): a guard must not set timers, tickers or sleep on it"

func (virtualClock) After(time.Duration) <-chan time.Time         { panic(noTimers) }
func (virtualClock) AfterFunc(time.Duration, func()) *clock.Timer { panic(noTimers) }
func (virtualClock) Sleep(time.Duration)                          { panic(noTimers) }
func (virtualClock) Tick(time.Duration) <-chan time.Time          { panic(noTimers) }
func (virtualClock) Ticker(time.Duration) *clock.Ticker           { panic(noTimers) }
func (virtualClock) Timer(time.Duration) *clock.Timer             { panic(noTimers) }
func (virtualClock) WithDeadline(context.Context, time.Time) (context.Context, context.CancelFunc) {
	panic(noTimers)
}
func (virtualClock) WithTimeout(context.Context, time.Duration) (context.Context, context.CancelFunc) {
	panic(noTimers)
}
