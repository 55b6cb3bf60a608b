package redisguard_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
	"github.com/herdsafe/backoff/redisguard"
	"github.com/redis/go-redis/v9"
)

// The examples run against the tests' Redis server (see TestMain), and
// are skipped when there is none. Each of their clients stands for
// another process of the same service.

var errUnavailable = errors.New("unavailable")

// newClient returns a client that honours the guards' timeouts.
func newClient() *redis.Client {
	return redis.NewClient(&redis.Options{Addr: redisguard.ExampleAddr, ContextTimeoutEnabled: true})
}

// timeout is generous in the examples: their first round trip also opens
// the connection.
var timeout = redisguard.WithTimeout(time.Second)

// Two instances of a service share one budget: the failures one of them
// sees spend the retries of the other.
func ExampleNewTokenBucket() {
	ctx := context.Background()
	clientA, clientB := newClient(), newClient()
	defer clientA.Close()
	defer clientB.Close()
	a := redisguard.NewTokenBucket(clientA, "example-payments", redisguard.WithBudget(budget.WithMaxTokens(10)), timeout)
	b := redisguard.NewTokenBucket(clientB, "example-payments", redisguard.WithBudget(budget.WithMaxTokens(10)), timeout)

	for range 5 { // five failures of instance a: 10 tokens down to 5, no longer above half
		p, _ := a.Allow(ctx, guard.Call{Attempt: 1})
		a.Record(p, guard.Outcome{Err: errUnavailable})
	}
	_, err := b.Allow(ctx, guard.Call{Attempt: 2})
	fmt.Println("instance b, a retry:", err)
	fmt.Println("the fleet's tokens:", b.Stats().Tokens)
	// Output:
	// instance b, a retry: budget: retry budget exhausted
	// the fleet's tokens: 5
}

// Two instances of a service share one ratio budget: the requests of one
// of them allow the retries of the other, a fraction of the fleet's.
func ExampleNewRatio() {
	ctx := context.Background()
	clientA, clientB := newClient(), newClient()
	defer clientA.Close()
	defer clientB.Close()
	// One retry per two requests, with no reserve; the staleness of 0 sends
	// each request at once, as the example needs.
	opts := []redisguard.Option{
		redisguard.WithBudget(budget.WithMinRetriesPerSecond(0), budget.WithRetryRatio(0.5)),
		redisguard.WithStaleness(0), timeout,
	}
	a := redisguard.NewRatio(clientA, "example-catalog", opts...)
	b := redisguard.NewRatio(clientB, "example-catalog", opts...)

	for range 4 { // four requests of instance a
		p, _ := a.Allow(ctx, guard.Call{Attempt: 1})
		a.Record(p, guard.Outcome{})
	}
	for i := range 3 { // three retries of instance b
		_, err := b.Allow(ctx, guard.Call{Attempt: 2})
		fmt.Printf("instance b, retry %d: %v\n", i+1, err)
	}
	// Output:
	// instance b, retry 1: <nil>
	// instance b, retry 2: <nil>
	// instance b, retry 3: budget: retry budget exhausted
}

// The failures of one instance open the breaker for the whole fleet.
func ExampleNewBreaker() {
	ctx := context.Background()
	clientA, clientB := newClient(), newClient()
	defer clientA.Close()
	defer clientB.Close()
	a := redisguard.NewBreaker(clientA, "example-search", redisguard.WithBreaker(breaker.WithConsecutiveFailures(3)), timeout)
	b := redisguard.NewBreaker(clientB, "example-search", redisguard.WithBreaker(breaker.WithConsecutiveFailures(3)), timeout)

	for range 3 {
		_ = a.Run(ctx, func(context.Context) error { return errUnavailable })
	}
	err := b.Run(ctx, func(context.Context) error { return nil })
	fmt.Println("instance b refused:", errors.Is(err, breaker.ErrCircuitOpen))
	fmt.Println("instance b sees:", b.State())
	// Output:
	// instance b refused: true
	// instance b sees: open
}

// Shared guards in a Policy: the breaker outside the retry stage, the
// budget inside it, where it sees each attempt's number. When the fleet's
// budget is spent, the retry stage stops with the budget's error as Cause
// and the last real error kept.
func Example_policy() {
	client := newClient()
	defer client.Close()
	retries := redisguard.NewTokenBucket(client, "example-orders", redisguard.WithBudget(budget.WithMaxTokens(4)), timeout)
	circuit := redisguard.NewBreaker(client, "example-orders", redisguard.WithBreaker(breaker.WithConsecutiveFailures(10)), timeout)
	p := policy.New(
		policy.Guard(circuit),
		policy.Retry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(5)),
		policy.Guard(retries),
	)
	attempts := 0
	err := p.DoErr(context.Background(), func(context.Context) error {
		attempts++
		return errUnavailable
	})
	var e *backoff.Error
	errors.As(err, &e)
	fmt.Println("attempts:", attempts)
	fmt.Println("cause:", e.Cause)
	fmt.Println("last error:", e.LastErr)
	// Output:
	// attempts: 2
	// cause: budget: retry budget exhausted
	// last error: unavailable
}

// With Redis unreachable, the guard decides on its local fallback, says
// so once, and never fails a call for it.
func Example_fallback() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true}) // nothing listens there
	defer client.Close()
	b := redisguard.NewTokenBucket(client, "example-fallback",
		redisguard.WithOnFallback(func(error) { fmt.Println("Redis failed: deciding locally") }),
	)
	for range 3 {
		_ = b.Run(context.Background(), func(context.Context) error { return nil })
	}
	l := b.Stats().Link
	fmt.Println("shared:", l.Shared, "fallbacks:", l.Fallbacks, "local decisions:", l.LocalDecisions)
	// Output:
	// Redis failed: deciding locally
	// shared: false fallbacks: 1 local decisions: 2
}
