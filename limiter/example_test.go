package limiter_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/policy"
)

// A limiter in front of a dependency, outermost: a call over the limit is
// refused before it costs the dependency anything, and is not retried.
func Example() {
	l := limiter.New() // the gradient algorithm, from a limit of 20
	p := policy.New(
		policy.Guard(l),
		policy.Retry(backoff.WithMaxTries(3)),
		policy.Timeout(time.Second), // a timeout is a failure: the limit shrinks
	)
	err := p.DoErr(context.Background(), func(ctx context.Context) error {
		return nil // the call to the dependency
	})
	switch {
	case errors.Is(err, limiter.ErrLimitExceeded):
		fmt.Println("shed: the dependency is at its limit")
	case err != nil:
		fmt.Println("failed:", err)
	default:
		fmt.Println("done; limit", l.Stats().Limit)
	}
	// Output:
	// done; limit 20
}

// Run runs a function under the limiter, on its own.
func ExampleLimiter_Run() {
	l := limiter.New(limiter.WithInitialLimit(1), limiter.WithCeiling(1))
	ctx := context.Background()
	_ = l.Run(ctx, func(ctx context.Context) error {
		err := l.Run(ctx, func(context.Context) error { return nil }) // a second call while the first runs
		fmt.Println(errors.Is(err, limiter.ErrLimitExceeded), errors.Is(err, backoff.ErrRefused))
		return nil
	})
	fmt.Println(l.Stats().RefusedStandard, "refused")
	// Output:
	// true true
	// 1 refused
}

// The limit follows the latency: it grows while the calls take their
// no-load latency, and shrinks once they take longer, here on a mock
// clock, one sample window per round of calls.
func ExampleWithVegas() {
	clk := clock.NewMock()
	l := limiter.New(limiter.WithVegas(3, 6), limiter.WithClock(clk),
		limiter.WithInitialLimit(10), limiter.WithWindow(time.Millisecond, 10),
		limiter.WithProbeInterval(0)) // the rule alone, without the probes of the no-load latency
	round := func(latency time.Duration) {
		var ps []guard.Permit
		for range 10 {
			p, _ := l.Allow(context.Background(), guard.Call{Attempt: 1})
			ps = append(ps, p)
		}
		clk.Add(latency)
		for _, p := range ps {
			l.Record(p, guard.Outcome{})
		}
		s := l.Stats()
		fmt.Printf("latency %v: limit %d\n", s.Latency, s.Limit)
	}
	round(10 * time.Millisecond) // the no-load latency
	round(10 * time.Millisecond)
	round(30 * time.Millisecond) // a queue at the dependency
	// Output:
	// latency 10ms: limit 13
	// latency 10ms: limit 16
	// latency 30ms: limit 11
}

// With priorities, background work gets half of the limit, and the calls
// that matter all of it.
func ExampleWithPriorityThresholds() {
	l := limiter.New(limiter.WithInitialLimit(4),
		limiter.WithPriorityThresholds(bulkhead.DefaultLowThreshold, bulkhead.DefaultStandardThreshold))
	background := bulkhead.WithPriority(context.Background(), bulkhead.Low)
	for i := range 3 {
		_, err := l.Allow(background, guard.Call{Attempt: 1})
		fmt.Println("background call", i+1, err)
	}
	// Output:
	// background call 1 <nil>
	// background call 2 <nil>
	// background call 3 limiter: low call shed above 50% of the concurrency limit
}
