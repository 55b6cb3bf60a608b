package breaker_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/policy"
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
		_ = cb.Run(context.Background(), func(context.Context) error { return down })
	}
	err := cb.Run(context.Background(), func(context.Context) error { return nil })
	fmt.Println(errors.Is(err, breaker.ErrCircuitOpen), cb.Counts().Rejections)
	// Output:
	// breaker: closed -> open
	// true 1
}

func ExampleBreaker_Run() {
	cb := breaker.New(breaker.WithConsecutiveFailures(2))
	down := errors.New("connection refused")
	for i := range 3 {
		err := cb.Run(context.Background(), func(context.Context) error { return down })
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
	p := policy.New(
		policy.Fallback(func(ctx context.Context, err error) (string, error) {
			if errors.Is(err, breaker.ErrCircuitOpen) {
				return "cached", nil
			}
			return "", err
		}),
		policy.Retry(backoff.WithMaxTries(5), backoff.WithBackOff(&backoff.ZeroBackOff{})),
		policy.Guard(cb),
		policy.Timeout(time.Second), // a slow attempt fails, and counts
	)
	attempts := 0
	v, err := policy.Do(context.Background(), p, func(context.Context) (string, error) {
		attempts++
		return "", errors.New("503 Service Unavailable")
	})
	fmt.Println(v, err, attempts, cb.State())
	// Output:
	// cached <nil> 3 open
}
