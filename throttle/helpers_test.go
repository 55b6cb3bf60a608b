package throttle

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
)

var (
	errOverloaded = errors.New("overloaded")
	errNotFound   = errors.New("not found")
)

// never is a random source under which no call is rejected: its draw is
// above every probability the formula gives for fewer than 2^52 requests.
func never() float64 { return math.Nextafter(1, 0) }

// fixed returns a random source that always draws v, and counts its
// draws.
func fixed(v float64) (func() float64, *atomic.Int64) {
	var n atomic.Int64
	return func() float64 { n.Add(1); return v }, &n
}

// newThrottle returns a Throttle on a mock clock that never rejects
// unless opts say otherwise.
func newThrottle(t *testing.T, opts ...Option) (*Throttle, *clock.Mock) {
	t.Helper()
	clk := clock.NewMock()
	th := New(append([]Option{WithClock(clk), WithRandom(never)}, opts...)...)
	if err := th.Validate(); err != nil {
		t.Fatal(err)
	}
	return th, clk
}

// call makes one call through th that ends with o, and reports whether it
// was admitted.
func call(t *testing.T, th *Throttle, o guard.Outcome) bool {
	t.Helper()
	p, err := th.Allow(context.Background(), guard.Call{Attempt: 1})
	switch {
	case err == nil:
		th.Record(p, o)
		return true
	case errors.Is(err, ErrThrottled):
		return false
	}
	t.Fatalf("Allow = %v, want nil or ErrThrottled", err)
	return false
}

// load makes req calls of which acc succeed and the others fail with
// errOverloaded, all admitted.
func load(t *testing.T, th *Throttle, req, acc int) {
	t.Helper()
	for i := range req {
		o := guard.Outcome{}
		if i >= acc {
			o.Err = errOverloaded
		}
		if !call(t, th, o) {
			t.Fatalf("call %d rejected", i)
		}
	}
}

func newMock() *clock.Mock { return clock.NewMock() }
