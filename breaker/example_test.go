package breaker_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
)

func ExampleNew() {
	cb := breaker.New(
		breaker.WithFailureRate(0.5, 10, 100), // trip when half of the last 100 calls fail, after 10
		breaker.WithOpenDuration(30*time.Second),
		breaker.WithHalfOpen(3, 2), // then 3 probes; 2 successes close it
		breaker.WithStateChange(func(from, to breaker.State) {
			fmt.Printf("breaker: %v -> %v\n", from, to)
		}),
	)
	down := errors.New("connection refused")
	for range 10 {
		_ = cb.Execute(context.Background(), func(context.Context) error { return down })
	}
	err := cb.Execute(context.Background(), func(context.Context) error { return nil })
	fmt.Println(errors.Is(err, breaker.ErrCircuitOpen), cb.Counts().Rejections)
	// Output:
	// breaker: closed -> open
	// true 1
}

func ExampleBreaker_Execute() {
	cb := breaker.New(breaker.WithConsecutiveFailures(2))
	down := errors.New("connection refused")
	for i := range 3 {
		err := cb.Execute(context.Background(), func(context.Context) error { return down })
		var oe *breaker.OpenError
		if errors.As(err, &oe) {
			fmt.Printf("call %d: refused, open for %v\n", i+1, oe.RetryAfter().Round(time.Minute))
			continue
		}
		fmt.Printf("call %d: %v\n", i+1, err)
	}
	// Output:
	// call 1: connection refused
	// call 2: connection refused
	// call 3: refused, open for 1m0s
}

// A breaker inside a retry stage sees every attempt; once it opens, its
// refusal stops the retries at once, and a fallback can answer instead.
func Example_policy() {
	cb := breaker.New(breaker.WithConsecutiveFailures(3))
	policy := backoff.NewPolicy(
		backoff.WithFallback(func(ctx context.Context, err error) (string, error) {
			if errors.Is(err, breaker.ErrCircuitOpen) {
				return "cached", nil
			}
			return "", err
		}),
		backoff.WithRetry(backoff.WithMaxTries(5), backoff.WithBackOff(&backoff.ZeroBackOff{})),
		backoff.WithGuard(cb),
		backoff.WithTimeout(time.Second), // a slow attempt fails, and counts
	)
	attempts := 0
	v, err := backoff.Execute(context.Background(), policy, func(context.Context) (string, error) {
		attempts++
		return "", errors.New("503 Service Unavailable")
	})
	fmt.Println(v, err, attempts, cb.State())
	// Output:
	// cached <nil> 3 open
}
