package budget_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/budget"
)

var errUnavailable = errors.New("unavailable")

// A budget inside the retry stage: once failures have spent it, the retry
// stage stops at the first retry, with Cause ErrBudgetExhausted and the
// real error in LastErr.
func Example_policy() {
	b := budget.NewTokenBucket() // gRPC's rule: 10 tokens, 0.1 back a success
	policy := backoff.NewPolicy(
		backoff.WithRetry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(4)),
		backoff.WithGuard(b), // inside the retry stage: it sees each attempt
	)
	ctx := context.Background()
	for call := 1; call <= 3; call++ {
		attempts := 0
		_, err := backoff.Execute(ctx, policy, func(context.Context) (string, error) {
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
	retry := backoff.Call{Attempt: 2}
	for range 5 { // five failures take 10 tokens down to 5: no longer above half
		p, _ := b.Allow(ctx, backoff.Call{Attempt: 1})
		b.Record(p, backoff.Outcome{Err: errUnavailable})
	}
	_, err := b.Allow(ctx, retry)
	fmt.Println("after 5 failures:", err)
	p, _ := b.Allow(ctx, backoff.Call{Attempt: 1})
	b.Record(p, backoff.Outcome{}) // a success gives 0.1 back: 5.1
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
		_, _ = b.Allow(ctx, backoff.Call{Attempt: 1})
	}
	admitted := 0
	for range 5 {
		if _, err := b.Allow(ctx, backoff.Call{Attempt: 2}); err == nil {
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

// Execute reads the attempt number from the context when the retry loop
// around it carries the attempt's State.
func ExampleBudget_Execute() {
	b := budget.NewTokenBucket(budget.WithMaxTokens(4))
	calls := 0
	_, err := backoff.Do(context.Background(), func(ctx context.Context) (int, error) {
		return 0, b.Execute(ctx, func(context.Context) error {
			calls++
			return errUnavailable
		})
	}, backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(5), backoff.WithAttemptState(),
		backoff.WithRetryable(func(err error) bool { return !errors.Is(err, budget.ErrBudgetExhausted) }))
	fmt.Println(calls, "calls;", errors.Is(err, budget.ErrBudgetExhausted))
	// Output:
	// 2 calls; true
}
