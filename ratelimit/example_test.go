package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/policy"
	"github.com/herdsafe/backoff/ratelimit"
)

// A Limiter in front of a retry stage admits a burst of calls, then one
// call per token, and refuses the rest at once.
func Example() {
	clk := clock.NewMock()
	lim := ratelimit.New(10, 3, ratelimit.WithClock(clk)) // 10 calls a second, bursts of 3
	p := policy.New(
		policy.Guard(lim),
		policy.Retry(backoff.WithMaxTries(3)),
	)
	ctx := context.Background()
	call := func(context.Context) error { return nil }
	for i := range 5 {
		err := p.DoErr(ctx, call)
		fmt.Printf("call %d: admitted %v, rate limited %v\n", i+1, err == nil, errors.Is(err, ratelimit.ErrRateLimited))
	}
	clk.Add(100 * time.Millisecond) // one token back
	fmt.Println("100ms later, admitted:", p.DoErr(ctx, call) == nil)
	fmt.Printf("%+v\n", lim.Stats())
	// Output:
	// call 1: admitted true, rate limited false
	// call 2: admitted true, rate limited false
	// call 3: admitted true, rate limited false
	// call 4: admitted false, rate limited true
	// call 5: admitted false, rate limited true
	// 100ms later, admitted: true
	// {Rate:10 Burst:3 Tokens:0 Waiting:0 Waited:0 Refused:2}
}

// With WithMaxWait a call that finds no token waits for it on the
// Limiter's clock, at most that long.
func ExampleWithMaxWait() {
	clk := clock.NewMock()
	lim := ratelimit.New(10, 1, ratelimit.WithMaxWait(time.Second), ratelimit.WithClock(clk))
	ctx := context.Background()
	_ = lim.Run(ctx, func(context.Context) error { return nil }) // takes the only token

	done := make(chan error)
	go func() {
		done <- lim.Run(ctx, func(context.Context) error {
			fmt.Println("ran after its wait")
			return nil
		})
	}()
	for lim.Stats().Waiting == 0 { // until it waits on the mock clock
		runtime.Gosched()
	}
	clk.Add(100 * time.Millisecond) // its token comes
	fmt.Println("err:", <-done)
	fmt.Println("waited:", lim.Stats().Waited)
	// Output:
	// ran after its wait
	// err: <nil>
	// waited: 1
}
