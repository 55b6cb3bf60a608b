package httpshed

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardstate"
)

// The wait for each state of a guard, and its spread, are package
// pushback's, and tested there: these tests check what the Shedder gives
// the rule (its settings, its guard, the refusal) and the header's unit.

// fixed returns a random source that always draws u.
func fixed(u float64) Option { return WithRandom(func() float64 { return u }) }

// The base (WithRetryAfter), the maximum (WithMaxRetryAfter) and the draw
// (WithRandom) are the Shedder's, and the wait is in whole seconds.
func TestRetryAfterSettings(t *testing.T) {
	cases := []struct {
		name string
		opts []Option
		want time.Duration
	}{
		{"defaults", []Option{fixed(0)}, DefaultRetryAfter},
		{"spread_default_base", []Option{fixed(0.99)}, 2 * time.Second},
		{"base", []Option{WithRetryAfter(20 * time.Second), fixed(0)}, 20 * time.Second},
		{"spread_cut_to_whole_seconds", []Option{WithRetryAfter(20 * time.Second), fixed(0.5)}, 30 * time.Second}, // 20 + 0.5 × 21 s
		{"max", []Option{WithRetryAfter(20 * time.Second), WithMaxRetryAfter(22 * time.Second), fixed(0.99)}, 22 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New(budget.NewTokenBucket(), c.opts...)
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := s.RetryAfter(errors.New("refused")); got != c.want {
				t.Errorf("RetryAfter = %v, want %v", got, c.want)
			}
		})
	}
}

// With the default random source, the clients refused together are told
// every whole second the spread allows.
func TestRetryAfterIsRandom(t *testing.T) {
	s := New(budget.NewTokenBucket(), WithRetryAfter(10*time.Second))
	seen := map[time.Duration]int{}
	for range 1000 {
		d := s.RetryAfter(errors.New("refused"))
		if d < 10*time.Second || d > 20*time.Second || d%time.Second != 0 {
			t.Fatalf("RetryAfter = %v; want whole seconds in [10s, 20s]", d)
		}
		seen[d]++
	}
	if len(seen) != 11 {
		t.Errorf("told %v; want each of the 11 whole seconds from 10 s to 20 s", seen)
	}
}

// The Shedder's guard and the refusal reach the rule: an open breaker
// tells the time until it admits a probe, rounded up to whole seconds.
func TestRetryAfterReadsTheGuard(t *testing.T) {
	cb, _, err := guardstate.OpenBreaker(t, 30*time.Second, 10500*time.Millisecond)
	if got := New(cb, fixed(0)).RetryAfter(err); got != 20*time.Second {
		t.Errorf("RetryAfter = %v; want the 19.5 s left of the open duration, rounded up", got)
	}
}

// Telling a refused request its wait allocates nothing.
func TestRetryAfterAllocatesNothing(t *testing.T) {
	b := bulkhead.New(1)
	if _, err := b.Allow(context.Background(), guard.Call{Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	_, err := b.Allow(context.Background(), guard.Call{Attempt: 1})
	s := New(b)
	if n := testing.AllocsPerRun(1000, func() { _ = s.RetryAfter(err) }); n != 0 {
		t.Errorf("%v allocations per RetryAfter, want 0", n)
	}
}
