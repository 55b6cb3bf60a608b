package httpshed

import (
	"context"
	"errors"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/throttle"
)

// fixed returns a random source that always draws u.
func fixed(u float64) Option { return WithRandom(func() float64 { return u }) }

// The wait d is spread over [d, 2d + 1 s), cut down to whole seconds and
// never below d rounded up, within the maximum.
func TestRetryAfterSpread(t *testing.T) {
	cases := []struct {
		name string
		base time.Duration
		max  time.Duration
		u    float64
		want time.Duration
	}{
		{"base", time.Second, DefaultMaxRetryAfter, 0, time.Second},
		{"base_top", time.Second, DefaultMaxRetryAfter, 0.99, 2 * time.Second},
		{"base_half", time.Second, DefaultMaxRetryAfter, 0.5, 2 * time.Second},
		{"base_low", time.Second, DefaultMaxRetryAfter, 0.49, time.Second},
		{"rounded_up", 1500 * time.Millisecond, DefaultMaxRetryAfter, 0, 2 * time.Second},
		{"rounded_up_top", 1500 * time.Millisecond, DefaultMaxRetryAfter, 0.99, 3 * time.Second}, // 1.5 + 0.99 × 2.5 s
		{"long", 20 * time.Second, DefaultMaxRetryAfter, 0.99, 40 * time.Second},                 // 20 + 0.99 × 21 s
		{"long_mid", 20 * time.Second, DefaultMaxRetryAfter, 0.5, 30 * time.Second},              // 20 + 0.5 × 21 s
		{"at_the_max", 20 * time.Second, 22 * time.Second, 0.99, 22 * time.Second},
		{"draw_above_one", time.Second, DefaultMaxRetryAfter, 5, 2 * time.Second},
		{"draw_negative", time.Second, DefaultMaxRetryAfter, -1, time.Second},
		{"draw_nan", time.Second, DefaultMaxRetryAfter, math.NaN(), time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New(budget.NewTokenBucket(), WithRetryAfter(c.base), WithMaxRetryAfter(c.max), fixed(c.u))
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

// A breaker tells the time until it admits a probe.
func TestRetryAfterOfABreaker(t *testing.T) {
	clk := clock.NewMock()
	cb := breaker.New(breaker.WithClock(clk), breaker.WithConsecutiveFailures(1), breaker.WithOpenDuration(30*time.Second))
	p, err := cb.Allow(context.Background(), guard.Call{Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	cb.Record(p, guard.Outcome{Err: errors.New("down")})
	clk.Add(10500 * time.Millisecond)
	_, err = cb.Allow(context.Background(), guard.Call{Attempt: 1})
	if !errors.Is(err, breaker.ErrCircuitOpen) {
		t.Fatalf("the breaker admitted a call: %v", err)
	}
	if got := New(cb, fixed(0)).RetryAfter(err); got != 20*time.Second {
		t.Errorf("RetryAfter = %v; want the 19.5 s left of the open duration, rounded up", got)
	}
	// Half-open with its probe taken: the probe decides soon; the base.
	clk.Add(time.Minute)
	if _, err := cb.Allow(context.Background(), guard.Call{Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	_, err = cb.Allow(context.Background(), guard.Call{Attempt: 1})
	if got := New(cb, fixed(0)).RetryAfter(err); !errors.Is(err, breaker.ErrCircuitOpen) || got != time.Second {
		t.Errorf("half-open: %v, RetryAfter = %v; want a refusal and the base", err, got)
	}
}

// A bulkhead tells the base, one more for each capacity's worth of
// callers queued.
func TestRetryAfterOfABulkhead(t *testing.T) {
	b := bulkhead.New(1, bulkhead.WithQueue(2))
	s := New(b, fixed(0))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := b.Allow(ctx, guard.Call{Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	queued := make(chan error, 2)
	for range 2 {
		go func() {
			p, err := b.Allow(ctx, guard.Call{Attempt: 1})
			if err == nil {
				b.Record(p, guard.Outcome{})
			}
			queued <- err
		}()
	}
	waitFor(t, func() bool { return b.Stats().Queued == 2 })
	_, err := b.Allow(ctx, guard.Call{Attempt: 1})
	if !errors.Is(err, bulkhead.ErrBulkheadFull) {
		t.Fatalf("the full bulkhead returned %v", err)
	}
	if got := s.RetryAfter(err); got != 3*time.Second {
		t.Errorf("RetryAfter = %v with 2 queued for 1 slot; want 3s", got)
	}
	b.Record(guard.Permit{}, guard.Outcome{}) // the first call ends: the queue drains
	for range 2 {
		if err := <-queued; err != nil {
			t.Error(err)
		}
	}
	if got := New(bulkhead.New(1), fixed(0)).RetryAfter(bulkhead.ErrBulkheadFull); got != time.Second {
		t.Errorf("RetryAfter = %v with nobody queued; want the base", got)
	}
}

// A throttle tells the base over the chance of getting through.
func TestRetryAfterOfAThrottle(t *testing.T) {
	clk := clock.NewMock()
	// It admits while p < 0.99999: 9 requests, none accepted, make p = 9/10.
	th := throttle.New(throttle.WithClock(clk), throttle.WithRandom(func() float64 { return 0.99999 }))
	for range 9 {
		p, err := th.Allow(context.Background(), guard.Call{Attempt: 1})
		if err != nil {
			t.Fatal(err)
		}
		th.Record(p, guard.Outcome{Err: errors.New("failed")})
	}
	if p := th.Stats().Probability; math.Abs(p-0.9) > 1e-9 {
		t.Fatalf("the rejection probability is %v, want 0.9", p)
	}
	if got := New(th, fixed(0)).RetryAfter(throttle.ErrThrottled); got != 10*time.Second {
		t.Errorf("RetryAfter = %v; want 1 s / (1 − 0.9)", got)
	}
	if got := New(th, fixed(0), WithMaxRetryAfter(5*time.Second)).RetryAfter(throttle.ErrThrottled); got != 5*time.Second {
		t.Errorf("RetryAfter = %v; want the maximum", got)
	}
}

// A breaker that half-opens sooner than the base is told the base: the
// base is the shortest wait told.
func TestRetryAfterOfABreakerNeverBelowTheBase(t *testing.T) {
	clk := clock.NewMock()
	cb := breaker.New(breaker.WithClock(clk), breaker.WithConsecutiveFailures(1), breaker.WithOpenDuration(3*time.Second))
	p, err := cb.Allow(context.Background(), guard.Call{Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	cb.Record(p, guard.Outcome{Err: errors.New("down")})
	_, err = cb.Allow(context.Background(), guard.Call{Attempt: 1})
	if got := New(cb, fixed(0), WithRetryAfter(5*time.Second)).RetryAfter(err); got != 5*time.Second {
		t.Errorf("RetryAfter = %v with 3 s left open and a base of 5 s; want the base", got)
	}
}

// An adaptive limiter at its limit tells the base times (in flight +
// queued) ÷ its limit.
func TestRetryAfterOfALimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := limiter.New(limiter.WithInitialLimit(2), limiter.WithQueue(3))
		for range 2 {
			if _, err := l.Allow(context.Background(), guard.Call{Attempt: 1}); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		queued := make(chan error, 3)
		for range 3 {
			go func() {
				_, err := l.Allow(ctx, guard.Call{Attempt: 1})
				queued <- err
			}()
		}
		synctest.Wait() // all three queued
		_, err := l.Allow(context.Background(), guard.Call{Attempt: 1})
		if !errors.Is(err, limiter.ErrLimitExceeded) {
			t.Fatalf("the limiter at its limit returned %v", err)
		}
		if got := New(l, fixed(0)).RetryAfter(err); got != 3*time.Second {
			t.Errorf("RetryAfter = %v with 2 in flight and 3 queued for a limit of 2; want 2.5 s rounded up, 3 s", got)
		}
		cancel()
		for range 3 {
			if err := <-queued; !errors.Is(err, context.Canceled) {
				t.Errorf("a queued caller ended with %v", err)
			}
		}
	})
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
