package policy_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
)

// A Policy is built once and shared: here a bulkhead of 20, a circuit
// breaker, 3 attempts and a 1 s timeout for each, outermost first.
func ExamplePolicy() {
	p := policy.New(
		policy.Guard(bulkhead.New(20)),
		policy.Guard(breaker.New()),
		policy.Retry(
			backoff.WithMaxTries(3),
			backoff.WithBackOff(&backoff.ZeroBackOff{}), // the example skips its waits
		),
		policy.Timeout(1*time.Second),
	)

	calls := 0
	action := func(ctx context.Context) (string, error) {
		if calls++; calls < 3 {
			return "", errors.New("connection refused")
		}
		return "ok", nil
	}

	// Reusable across multiple calls.
	val, err := policy.Do(context.Background(), p, action)
	fmt.Println(val, err, calls)
	// Output:
	// ok <nil> 3
}

// The order of the stages is the caller's. Inside the retry stage a guard
// sees every attempt; outside it, the whole retry loop as one call.
func ExampleNew() {
	var inside, outside counter
	retry := policy.Retry(backoff.WithBackOff(&backoff.ZeroBackOff{}))
	fails := func(context.Context) error { return errors.New("down") }

	_ = policy.New(retry, policy.Guard(&inside)).DoErr(context.Background(), fails)
	_ = policy.New(policy.Guard(&outside), retry).DoErr(context.Background(), fails)
	fmt.Println("inside the retry stage:", inside.calls.Load(), "calls")
	fmt.Println("outside the retry stage:", outside.calls.Load(), "call")
	// Output:
	// inside the retry stage: 3 calls
	// outside the retry stage: 1 call
}

// counter is a Guard of one's own: it admits every call and counts them.
type counter struct{ calls atomic.Int64 }

func (c *counter) Allow(context.Context, guard.Call) (guard.Permit, error) {
	c.calls.Add(1)
	return guard.Permit{}, nil
}

func (c *counter) Record(guard.Permit, guard.Outcome) {}

// Do returns the result of the first attempt that succeeded; on failure,
// a *backoff.Error that says why the call stopped, and the last error.
func ExampleDo() {
	p := policy.New(policy.Retry(
		backoff.WithBackOff(&backoff.ZeroBackOff{}),
		backoff.WithClock(clock.NewMock()), // the example's time stands still
	))
	calls := 0
	val, err := policy.Do(context.Background(), p, func(ctx context.Context) (int, error) {
		if calls++; calls < 2 {
			return 0, errors.New("not ready")
		}
		return 42, nil
	})
	fmt.Println(val, err, calls)

	_, err = policy.Do(context.Background(), p, func(ctx context.Context) (int, error) {
		return 0, errors.New("connection refused")
	})
	fmt.Printf("%+v\n", err)
	// Output:
	// 42 <nil> 2
	// gave up after 3 attempts in 0s (backoff: retries exhausted): connection refused
}

// DoErr is Do for a function that returns only an error.
func ExamplePolicy_DoErr() {
	p := policy.New(policy.Retry(backoff.WithMaxTries(2), backoff.WithBackOff(&backoff.ZeroBackOff{})))
	err := p.DoErr(context.Background(), func(ctx context.Context) error {
		return io.ErrUnexpectedEOF
	})
	var re *backoff.Error
	if errors.As(err, &re) {
		fmt.Printf("%v after %d attempts: %v\n", re.Cause, re.Attempts, re.LastErr)
	}
	// Output:
	// backoff: retries exhausted after 2 attempts: unexpected EOF
}

// Retry takes every backoff.RetryOption, with defaults fit for a fleet:
// full jitter and 3 attempts. Here a classifier retries one error only.
func ExampleRetry() {
	p := policy.New(policy.Retry(
		backoff.WithMaxTries(5),
		backoff.WithRetryable(func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }),
		backoff.WithBackOff(&backoff.ZeroBackOff{}),
	))
	calls := 0
	_, err := policy.Do(context.Background(), p, func(context.Context) (int, error) {
		calls++
		return 0, errors.New("400 Bad Request")
	})
	var re *backoff.Error
	errors.As(err, &re)
	fmt.Println(calls, re.Cause)
	// Output:
	// 1 backoff: permanent error
}

// The waits of a retry stage that is given no BackOff: each drawn from
// [0, nominal], the nominal interval doubling from 100 ms up to 5 s. Here
// the random draw is pinned to the top of each range.
func ExampleDefaultBackOff() {
	b := policy.DefaultBackOff()
	b.Random = func() float64 { return 1 }
	for range 7 {
		fmt.Print(b.NextBackOff(), " ")
	}
	fmt.Println()
	// Output:
	// 100ms 200ms 400ms 800ms 1.6s 3.2s 5s
}

// Inside the retry stage a timeout bounds each attempt: each attempt's
// context has a deadline of its own, and an attempt that runs out of time
// is retried like any other failure.
func ExampleTimeout() {
	p := policy.New(
		policy.Retry(backoff.WithBackOff(&backoff.ZeroBackOff{})),
		policy.Timeout(2*time.Second),
	)
	calls := 0
	val, err := policy.Do(context.Background(), p, func(ctx context.Context) (string, error) {
		deadline, _ := ctx.Deadline()
		fmt.Printf("attempt %d has %v\n", calls+1, time.Until(deadline).Round(time.Second))
		if calls++; calls == 1 {
			return "", context.DeadlineExceeded // as a request that ran out of time returns
		}
		return "answered", nil
	})
	fmt.Println(val, err)
	// Output:
	// attempt 1 has 2s
	// attempt 2 has 2s
	// answered <nil>
}

// Recover turns a panic into a *PanicError, which the stages around it
// handle like any other error: here the retry stage retries it.
func ExampleRecover() {
	p := policy.New(policy.Retry(backoff.WithBackOff(&backoff.ZeroBackOff{})), policy.Recover())
	calls := 0
	err := p.DoErr(context.Background(), func(context.Context) error {
		if calls++; calls == 1 {
			panic("corrupted cache") // the first attempt panics
		}
		return nil
	})
	fmt.Println(err, calls)

	err = policy.New(policy.Recover()).DoErr(context.Background(), func(context.Context) error {
		panic("corrupted cache")
	})
	var pe *policy.PanicError
	fmt.Println(errors.As(err, &pe), pe.Value)
	// Output:
	// <nil> 2
	// true corrupted cache
}

// A fallback serves stale data when the call fails: after the retries, on
// a guard's refusal, on a permanent error.
func ExampleFallback() {
	cache := map[string]string{"user:7": "Ada (cached)"}
	p := policy.New(
		policy.Fallback(func(ctx context.Context, err error) (string, error) {
			if v, ok := cache["user:7"]; ok {
				return v, nil
			}
			return "", err
		}),
		policy.Retry(backoff.WithBackOff(&backoff.ZeroBackOff{})),
	)
	name, err := policy.Do(context.Background(), p, func(context.Context) (string, error) {
		return "", errors.New("database unreachable")
	})
	fmt.Println(name, err)
	// Output:
	// Ada (cached) <nil>
}

// FallbackErr is the fallback of a call that returns only an error: here
// it records the failure and swallows it.
func ExampleFallbackErr() {
	p := policy.New(
		policy.FallbackErr(func(ctx context.Context, err error) error {
			fmt.Println("queued for later:", err)
			return nil
		}),
		policy.Retry(backoff.WithMaxTries(1)),
	)
	err := p.DoErr(context.Background(), func(context.Context) error { return errors.New("broker down") })
	fmt.Println(err)
	// Output:
	// queued for later: broker down
	// <nil>
}

// Guard takes any guard.Guard, one of the repository's or a type of your
// own (package guard shows how to write one): here a breaker forced open
// while its dependency is in maintenance. A refusal ends the call at once:
// its Cause matches backoff.ErrRefused and wraps the guard's error.
func ExampleGuard() {
	cb := breaker.New()
	p := policy.New(policy.Retry(), policy.Guard(cb))

	_ = cb.ForceOpen() // the dependency goes into maintenance
	calls := 0
	err := p.DoErr(context.Background(), func(context.Context) error { calls++; return nil })
	fmt.Println(errors.Is(err, breaker.ErrCircuitOpen), errors.Is(err, backoff.ErrRefused), guard.IsRefusal(err), calls)

	_ = cb.Reset() // and comes back
	err = p.DoErr(context.Background(), func(context.Context) error { calls++; return nil })
	fmt.Println(err, calls)
	// Output:
	// true true true 0
	// <nil> 1
}
