package backoff

import (
	"context"
	"strings"
	"sync"
	"time"
)

// Ticker holds a channel that delivers `ticks' of a clock at times reported
// by a BackOff.
//
// Ticks will continue to arrive when the previous operation is still
// running, so operations that take a while to fail could run in quick
// succession: the wait before the next tick starts when a tick is received.
//
// A Ticker works on its own clone of a BackOff that has Clone, as every
// BackOff of this package has (see BackOff); it calls Reset on it
// before the first tick and NextBackOff from its own goroutine. A BackOff
// that does not is used as it is, so nothing else may call its methods
// while the Ticker runs. The Ticker's methods are safe for concurrent use.
type Ticker struct {
	C <-chan time.Time

	c     chan time.Time
	b     BackOff
	ctx   context.Context
	reset chan struct{}
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// NewTicker returns a new Ticker containing a channel that will send the
// time at times specified by the BackOff argument. Ticker is guaranteed to
// tick at least once. The channel is closed when Stop method is called or
// BackOff stops. A BackOff without Clone must not be
// manipulated (notably by calling NextBackOff or Reset) while the ticker is
// running.
//
// The Ticker waits on the time package, so a test runs it in virtual time
// inside a testing/synctest bubble. Like time.NewTicker, NewTicker panics if
// its argument cannot be used: a nil BackOff, typed or not, or one of this
// package whose fields make no sense (see ExponentialBackOff.Validate). A
// BackOff of your own that returns a negative wait other than Stop ends the
// Ticker as Stop does. Wrap the BackOff with WithContext to stop the Ticker
// with a context.
func NewTicker(b BackOff) *Ticker {
	err := validate(b)
	if err == nil && b == nil {
		err = invalid("the BackOff is nil")
	}
	if err != nil {
		panic("backoff: NewTicker: " + strings.TrimPrefix(err.Error(), "backoff: "))
	}
	if c, ok := b.(interface{ Clone() BackOff }); ok {
		b = c.Clone()
	}
	ch := make(chan time.Time)
	t := &Ticker{
		C:     ch,
		c:     ch,
		b:     b,
		ctx:   context.Background(),
		reset: make(chan struct{}),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	if c, ok := b.(*contextBackOff); ok {
		t.ctx = c.ctx
	}
	b.Reset()
	go t.run()
	return t
}

// Stop turns off a ticker. After Stop, no more ticks will be sent. Stop is
// synchronous: when it returns, the Ticker's goroutine has ended, its timer
// is stopped and C is closed. Stop may be called more than once.
func (t *Ticker) Stop() {
	t.once.Do(func() { close(t.stop) })
	<-t.done
}

// Reset restarts the BackOff's sequence: the wait before the next tick is the
// first one again, counted from now if a wait is in progress. It does
// nothing once the Ticker has stopped.
func (t *Ticker) Reset() {
	select {
	case t.reset <- struct{}{}:
	case <-t.done:
	}
}

func (t *Ticker) run() {
	defer close(t.done)
	defer close(t.c)
	tick := time.Now()
	first := true
	for {
		if !t.send(tick, first) {
			return
		}
		first = false
		var ok bool
		if tick, ok = t.sleep(); !ok {
			return
		}
	}
}

// send delivers one tick. The first tick is delivered even if the BackOff's
// context is already done.
func (t *Ticker) send(tick time.Time, first bool) bool {
	done := t.ctx.Done()
	if first {
		done = nil
	}
	for {
		select {
		case t.c <- tick:
			return true
		case <-t.reset:
			t.b.Reset()
		case <-t.stop:
			return false
		case <-done:
			return false
		}
	}
}

// sleep waits the BackOff's next interval and returns the time it ended.
func (t *Ticker) sleep() (time.Time, bool) {
	for {
		next := t.b.NextBackOff()
		if next < 0 { // Stop, or a broken BackOff
			return time.Time{}, false
		}
		fired, stop := t.timer(next)
		select {
		case tick := <-fired:
			return tick, true
		case <-t.reset:
			stop()
			t.b.Reset()
		case <-t.stop:
			stop()
			return time.Time{}, false
		case <-t.ctx.Done():
			stop()
			return time.Time{}, false
		}
	}
}

// timer starts a timer of d.
func (t *Ticker) timer(d time.Duration) (<-chan time.Time, func() bool) {
	tm := time.NewTimer(d)
	return tm.C, tm.Stop
}
