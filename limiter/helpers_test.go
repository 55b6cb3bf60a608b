package limiter_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/limiter"
)

var errCall = errors.New("the call failed")

// manualClock is a clock that moves only when the test says, and counts
// its readings. Its timers are the time package's: the tests that queue
// with a maximum wait run in a testing/synctest bubble on the default
// clock instead.
type manualClock struct {
	clock.Clock
	ns    atomic.Int64
	reads atomic.Int64
}

func newManualClock() *manualClock { return &manualClock{Clock: clock.New()} }

func (c *manualClock) Now() time.Time {
	c.reads.Add(1)
	return time.Unix(0, c.ns.Load())
}
func (c *manualClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
func (c *manualClock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }
func (c *manualClock) Add(d time.Duration)             { c.ns.Add(int64(d)) }

// admit asks l to admit n calls, failing the test if one is refused.
func admit(t *testing.T, l *limiter.Limiter, ctx context.Context, n int) []guard.Permit {
	t.Helper()
	ps := make([]guard.Permit, n)
	for i := range ps {
		p, err := l.Allow(ctx, guard.Call{Attempt: 1})
		if err != nil {
			t.Fatalf("call %d of %d refused: %v (%+v)", i+1, n, err, l.Stats())
		}
		ps[i] = p
	}
	return ps
}

// recordAll reports the calls of ps as ended with o.
func recordAll(l *limiter.Limiter, ps []guard.Permit, o guard.Outcome) {
	for _, p := range ps {
		l.Record(p, o)
	}
}

// round admits n calls, lets latency pass, and ends them with err. On a
// Limiter whose windows need n calls and 1 ns (WithWindow), a round ends
// one sample window at its last call, provided latency is not below the
// latency of the window before: a window lasts that long at least.
func round(t *testing.T, l *limiter.Limiter, clk *manualClock, n int, latency time.Duration, err error) limiter.Stats {
	t.Helper()
	ps := admit(t, l, context.Background(), n)
	clk.Add(latency)
	recordAll(l, ps, guard.Outcome{Err: err})
	return l.Stats()
}
