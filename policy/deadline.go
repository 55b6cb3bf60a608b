package policy

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// deadline is the context a Timeout stage gives the stages inside it: its
// parent, with a deadline d after the stage began, cancelled when the stage
// returns. It behaves as context.WithTimeout's context does, but it arms a
// timer only when something waits for it to end: its Done channel, a
// context derived from it, or context.AfterFunc. Until then it is one
// allocation and one reading of the monotonic clock, where
// context.WithTimeout costs four allocations, a timer armed and stopped,
// and a full clock reading, on every call; a function that returns before
// it ever looks at Done pays for none of it.
//
// Err and Deadline need no timer: Err compares the clock with the deadline
// (the parent's error first), so a function that checks ctx.Err() sees the
// deadline pass. context.Cause of it is its Err, or its parent's cause.
type deadline struct {
	context.Context // the parent

	at   time.Time // the deadline: the parent's, or the stage's if sooner
	mine bool      // at is the stage's deadline, not the parent's

	once sync.Once
	real atomic.Pointer[timerContext] // made on first need
	done atomic.Bool                  // the stage has returned
}

// timerContext is the context.WithDeadline of the parent that stands
// behind a deadline once something waits for it.
type timerContext struct {
	context.Context
	stop context.CancelFunc
}

// epoch is the origin of the stage's monotonic readings: at is epoch plus
// the time since it, which the time package reads on the monotonic clock
// alone, at half the cost of a time.Now.
var epoch = time.Now()

// newDeadline returns the context of a Timeout stage of d under parent.
func newDeadline(parent context.Context, d time.Duration) *deadline {
	at := epoch.Add(time.Since(epoch) + d)
	c := &deadline{Context: parent, at: at, mine: true}
	if pd, ok := parent.Deadline(); ok && !pd.After(at) {
		c.at, c.mine = pd, false
	}
	return c
}

// Deadline returns the deadline: the stage's, or the parent's if sooner.
func (c *deadline) Deadline() (time.Time, bool) { return c.at, true }

// Done returns a channel closed when the deadline passes, the parent is
// done, or the stage returns. The first call arms the timer.
func (c *deadline) Done() <-chan struct{} { return c.materialize().Done() }

// Err returns nil until the context is done, then context.DeadlineExceeded
// or context.Canceled, as context.WithTimeout's does.
func (c *deadline) Err() error {
	if r := c.real.Load(); r != nil {
		return r.Err()
	}
	if err := c.Context.Err(); err != nil {
		return err
	}
	if c.done.Load() {
		return context.Canceled
	}
	if c.mine && time.Until(c.at) <= 0 {
		return context.DeadlineExceeded
	}
	return nil
}

// Value returns the parent's value for key, or, once a timer context
// stands behind c, that context's (so that context.Cause finds its cause).
func (c *deadline) Value(key any) any {
	if r := c.real.Load(); r != nil {
		return r.Value(key)
	}
	return c.Context.Value(key)
}

// AfterFunc arranges for f to run after c is done, as context.AfterFunc
// does. The context package uses it for a context derived from c, which
// then needs no goroutine of its own.
func (c *deadline) AfterFunc(f func()) (stop func() bool) {
	return context.AfterFunc(c.materialize(), f)
}

// materialize returns the timer context behind c, making it on first use:
// a context.WithDeadline of the parent at c's deadline (a context.WithCancel
// if the parent's deadline comes first, as context.WithDeadline itself
// does), cancelled at once if the stage has already returned.
func (c *deadline) materialize() context.Context {
	c.once.Do(func() {
		var r context.Context
		var stop context.CancelFunc
		if c.mine {
			r, stop = context.WithDeadline(c.Context, c.at)
		} else { // the parent ends first, and ends this one with it
			r, stop = context.WithCancel(c.Context)
		}
		c.real.Store(&timerContext{Context: r, stop: stop})
		if c.done.Load() {
			stop()
		}
	})
	return c.real.Load()
}

// end is called when the stage returns: c is cancelled, and its timer, if
// any, stopped. (If materialize runs at the same time, one of the two stops
// the timer: cancelling twice is harmless.)
func (c *deadline) end() {
	c.done.Store(true)
	if r := c.real.Load(); r != nil {
		r.stop()
	}
}
