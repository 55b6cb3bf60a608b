package budget_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
)

var errUnavailable = errors.New("unavailable")

// A budget inside the retry stage: once failures have spent it, the retry
// stage stops at the first retry, with a Cause that matches
// ErrBudgetExhausted and the real error in LastErr.
func Example_policy() {
	b := budget.NewTokenBucket() // gRPC's rule: 10 tokens, 0.1 back a success
	p := policy.New(
		policy.Retry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(4)),
		policy.Guard(b), // inside the retry stage: it sees each attempt
	)
	ctx := context.Background()
	for call := 1; call <= 3; call++ {
		attempts := 0
		_, err := policy.Do(ctx, p, func(context.Context) (string, error) {
			attempts++
			return "", errUnavailable
		})
		var e *backoff.Error
		errors.As(err, &e)
		fmt.Printf("call %d: %d attempts, budget spent: %v, last error: %v, tokens left: %v\n",
			call, attempts, errors.Is(e.Cause, budget.ErrBudgetExhausted), e.LastErr, b.Stats().Tokens)
	}
	// Output:
	// call 1: 4 attempts, budget spent: false, last error: unavailable, tokens left: 6
	// call 2: 1 attempts, budget spent: true, last error: unavailable, tokens left: 5
	// call 3: 1 attempts, budget spent: true, last error: unavailable, tokens left: 4
}

func ExampleNewTokenBucket() {
	b := budget.NewTokenBucket(budget.WithMaxTokens(10), budget.WithTokenRatio(0.1))
	ctx := context.Background()
	retry := guard.Call{Attempt: 2}
	for range 5 { // five failures take 10 tokens down to 5: no longer above half
		p, _ := b.Allow(ctx, guard.Call{Attempt: 1})
		b.Record(p, guard.Outcome{Err: errUnavailable})
	}
	_, err := b.Allow(ctx, retry)
	fmt.Println("after 5 failures:", err)
	p, _ := b.Allow(ctx, guard.Call{Attempt: 1})
	b.Record(p, guard.Outcome{}) // a success gives 0.1 back: 5.1
	_, err = b.Allow(ctx, retry)
	fmt.Println("after a success:", err)
	// Output:
	// after 5 failures: budget: retry budget exhausted
	// after a success: <nil>
}

func ExampleNewRatio() {
	clk := clock.NewMock() // the herd simulator or a test drives the window
	b := budget.NewRatio(
		budget.WithWindow(10*time.Second),
		budget.WithMinRetriesPerSecond(0), // no reserve, to show the ratio alone
		budget.WithRetryRatio(0.2),
		budget.WithClock(clk),
	)
	ctx := context.Background()
	for range 10 {
		_, _ = b.Allow(ctx, guard.Call{Attempt: 1})
	}
	admitted := 0
	for range 5 {
		if _, err := b.Allow(ctx, guard.Call{Attempt: 2}); err == nil {
			admitted++
		}
	}
	fmt.Printf("10 requests allow %d of 5 retries: %+v\n", admitted, b.Stats())
	clk.Add(10 * time.Second)
	fmt.Printf("a window later: %+v\n", b.Stats())
	// Output:
	// 10 requests allow 2 of 5 retries: {Tokens:0 Requests:10 Retries:2 Allowed:2 Refused:3}
	// a window later: {Tokens:0 Requests:0 Retries:0 Allowed:2 Refused:3}
}

// Run counts a call as a first attempt. A retry loop of your own counts
// its attempts and calls guard.Run with each one's number: the Budget
// refuses the retries it cannot afford, and its refusal stops the driver
// at once.
func ExampleBudget_Run() {
	b := budget.NewTokenBucket(budget.WithMaxTokens(4))
	_ = b.Run(context.Background(), func(context.Context) error { return errUnavailable }) // 3 tokens left

	calls, attempt := 0, 0
	err := backoff.DoErr(context.Background(), func(ctx context.Context) error {
		attempt++
		return guard.Run(ctx, b, guard.Call{Attempt: attempt}, func(context.Context) error {
			calls++
			return errUnavailable
		})
	}, backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(5))
	fmt.Println(calls, "calls;", errors.Is(err, budget.ErrBudgetExhausted), errors.Is(err, backoff.ErrRefused))
	// Output:
	// 1 calls; true true
}

// An in-flight budget caps the retries in flight: here 20% of the calls
// in flight, or 3, whichever is more.
func ExampleNewInFlight() {
	b := budget.NewInFlight()
	ctx := context.Background()
	for range 30 { // 30 first attempts in flight
		if _, err := b.Allow(ctx, guard.Call{Attempt: 1}); err != nil {
			fmt.Println(err)
		}
	}
	admitted := 0
	for range 20 {
		if _, err := b.Allow(ctx, guard.Call{Attempt: 2}); err == nil {
			admitted++
		}
	}
	s := b.Stats()
	fmt.Printf("%d retries admitted; %d of %d calls in flight are retries\n", admitted, s.Retries, s.Requests)
	// Output: 7 retries admitted; 7 of 37 calls in flight are retries
}

// A spent token bucket refuses the retry as soon as the attempt before it
// fails, not after the wait: here a wait of an hour, which the call never
// starts (Budget.Precheck; see guard.Prechecker).
func ExampleBudget_Precheck() {
	b := budget.NewTokenBucket(budget.WithMaxTokens(2)) // one failure leaves no retry
	p := policy.New(
		policy.Retry(backoff.WithBackOff(backoff.NewConstantBackOff(time.Hour)), backoff.WithMaxTries(3)),
		policy.Guard(b),
	)
	start := time.Now()
	err := p.DoErr(context.Background(), func(context.Context) error { return errUnavailable })
	fmt.Println(errors.Is(err, budget.ErrBudgetExhausted), time.Since(start) < time.Minute)
	// Output: true true
}
