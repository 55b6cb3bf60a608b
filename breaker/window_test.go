package breaker_test

import (
	"testing"
	"time"

	"github.com/herdsafe/backoff/breaker"
)

func TestFailureRate(t *testing.T) {
	for _, c := range []struct {
		name    string
		rate    float64
		min, n  int
		outcome string // S for a success, F for a failure
		tripAt  int    // the 1-based call that trips, 0 for none
	}{
		{"below_min_calls", 0.5, 4, 10, "FFF", 0},
		{"min_calls_reached", 0.5, 4, 10, "FFFSF", 5},
		{"rate_reached_exactly", 0.5, 10, 10, "SSSSSFFFFF", 10},
		{"rate_below", 0.5, 10, 10, "SSSSSSFFFF", 0},
		{"decimal_rate", 0.1, 30, 30, "SSSSSSSSSSSSSSSSSSSSSSSSSSSFFF", 30},
		{"old_failures_slide_out", 0.5, 4, 4, "FSSSFSSSFSSSF", 0},
		{"sliding_window_trips", 0.5, 4, 4, "FSSSFSSSSFSF", 12},
		{"every_failure", 1, 3, 3, "FSFFF", 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := breaker.New(breaker.WithClock(newMock()), breaker.WithFailureRate(c.rate, c.min, c.n))
			for i, o := range c.outcome {
				var err error
				if o == 'F' {
					err = errBoom
				}
				calls(t, b, 1, err)
				if tripped := b.State() == breaker.Open; tripped != (i+1 == c.tripAt) {
					t.Fatalf("after call %d: open %v, want it to trip at call %d", i+1, tripped, c.tripAt)
				}
				if c.tripAt == i+1 {
					return
				}
			}
		})
	}
}

func TestFailureRateWindowStartsEmptyOnClose(t *testing.T) {
	clk := newMock()
	b := breaker.New(breaker.WithClock(clk), breaker.WithFailureRate(0.6, 2, 4), breaker.WithOpenDuration(time.Second))
	calls(t, b, 1, nil)
	calls(t, b, 2, errBoom) // 2 of 3
	wantState(t, b, breaker.Open)
	clk.Add(time.Second)
	calls(t, b, 1, nil) // the probe closes it
	calls(t, b, 1, errBoom)
	wantState(t, b, breaker.Closed) // 1 of 1: below minCalls, whatever came before
	calls(t, b, 1, errBoom)
	wantState(t, b, breaker.Open)
}

func TestFailureRateOver(t *testing.T) {
	type step struct {
		wait    time.Duration // advance the clock first
		outcome string
	}
	for _, c := range []struct {
		name  string
		steps []step
		trips bool
	}{
		{"below_min_calls", []step{{0, "FFF"}}, false},
		{"min_calls_reached", []step{{0, "FFFF"}}, true},
		{"successes_in_window", []step{{0, "SSS"}, {9500 * time.Millisecond, "FF"}}, false},
		{"rate_reached_in_window", []step{{0, "SSS"}, {9500 * time.Millisecond, "FFF"}}, true},
		{"successes_slid_out", []step{{0, "SSSSSS"}, {10 * time.Second, "FFFF"}}, true},
		{"failures_slid_out", []step{{0, "FFF"}, {10 * time.Second, "SF"}}, false},
		{"spread_over_buckets", []step{{0, "S"}, {time.Second, "F"}, {time.Second, "S"}, {time.Second, "F"}}, true},
		{"long_gap", []step{{0, "SSSS"}, {time.Hour, "FFF"}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			clk := newMock()
			b := breaker.New(breaker.WithClock(clk), breaker.WithFailureRateOver(0.5, 4, 10*time.Second))
			for _, s := range c.steps {
				clk.Add(s.wait)
				for _, o := range s.outcome {
					var err error
					if o == 'F' {
						err = errBoom
					}
					if !call(b, err) {
						t.Fatal("refused before the last call")
					}
				}
			}
			if got := b.State() == breaker.Open; got != c.trips {
				t.Fatalf("open %v, want %v", got, c.trips)
			}
		})
	}
}
