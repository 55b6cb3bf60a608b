package throttle

import (
	"testing"
	"time"

	"github.com/herdsafe/backoff/guard"
)

// WithMaxRejection caps the probability: by default at 0.5, so that half
// the calls reach the backend however badly it failed; a draw just below
// the cap rejects, one at it admits.
func TestMaxRejection(t *testing.T) {
	for _, c := range []struct {
		opts []Option
		want float64
	}{
		{nil, DefaultMaxRejection},
		{[]Option{WithMaxRejection(0.8)}, 0.8},
		{[]Option{WithMaxRejection(1)}, 10.0 / 11},
	} {
		th, _ := newThrottle(t, c.opts...)
		load(t, th, 10, 0) // the book's 10/11
		if p := th.Stats().Probability; p != c.want {
			t.Errorf("%d options: probability %v, want %v", len(c.opts), p, c.want)
		}
		th.random, _ = fixed(c.want)
		if !call(t, th, guard.Outcome{Err: errOverloaded}) {
			t.Errorf("a draw of exactly the cap %v rejected", c.want)
		}
		th.random, _ = fixed(c.want - 1e-12)
		if call(t, th, guard.Outcome{}) {
			t.Errorf("a draw just below the cap %v admitted", c.want)
		}
	}
}

// WithMinRate: below the rate, over the whole window, nothing is rejected,
// whatever failed; at it, the book's rule applies.
func TestMinRate(t *testing.T) {
	// 1 a second over a 10 s window: 10 requests.
	th, _ := newThrottle(t, WithMinRate(1), WithWindow(10*time.Second))
	th.random, _ = fixed(0)
	load(t, th, 9, 0)
	if p := th.Stats().Probability; p != 0 {
		t.Errorf("9 failed requests, below the rate: probability %v, want 0", p)
	}
	if !call(t, th, guard.Outcome{Err: errOverloaded}) { // the 10th is still judged on 9
		t.Fatal("a call below the rate was rejected")
	}
	if p := th.Stats().Probability; p != DefaultMaxRejection {
		t.Errorf("10 failed requests, at the rate: probability %v, want the cap", p)
	}
	if call(t, th, guard.Outcome{}) {
		t.Error("a call at the rate was admitted under a draw of 0")
	}
}

// The point of the cap: after an outage the Throttle recovers. A client
// sends 10 calls a second; the backend fails every call for a window,
// then accepts every call. Uncapped, every call the Throttle rejects
// counts as a request that was not accepted, and a window after the
// recovery it still rejects most calls; capped at the default, the
// accepts of the calls it lets through outweigh the outage's failures,
// and from a window after the recovery on it rejects nothing.
func TestRecoversAfterOutage(t *testing.T) {
	run := func(opts ...Option) (lastWindow, afterRecovery float64) {
		th, clk := newThrottle(t, append([]Option{WithWindow(time.Minute)}, opts...)...)
		n := 0
		th.random = func() float64 { n++; return float64(n%100) / 100 } // an even spread of draws
		step := func(seconds int, fail bool) (rejected, calls int) {
			for range seconds {
				for range 10 {
					o := guard.Outcome{}
					if fail {
						o.Err = errOverloaded
					}
					calls++
					if !call(t, th, o) {
						rejected++
					}
				}
				clk.Add(time.Second)
			}
			return rejected, calls
		}
		step(60, true) // the outage: a window of failures
		r, c := step(60, false)
		lastWindow = float64(r) / float64(c)
		r, _ = step(30, false)
		afterRecovery = float64(r)
		return lastWindow, afterRecovery
	}
	uncapped, uncappedAfter := run(WithMaxRejection(1))
	capped, cappedAfter := run()
	t.Logf("rejected in the window after the outage: uncapped %.0f%%, capped %.0f%%", 100*uncapped, 100*capped)
	if uncapped < 0.5 || uncappedAfter == 0 {
		t.Errorf("uncapped, the Throttle rejected %.0f%% of the calls of the healthy window and %v calls after it; the scenario no longer shows the problem", 100*uncapped, uncappedAfter)
	}
	if capped > 0.5 || cappedAfter != 0 {
		t.Errorf("capped, the Throttle rejected %.0f%% of the calls of the healthy window and %v calls half a window later; want it recovered", 100*capped, cappedAfter)
	}
}
