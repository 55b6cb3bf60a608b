package backoff_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/bulkhead"
)

// A Policy is built once and shared: here a bulkhead of 20, a circuit
// breaker, 3 attempts and a 1 s timeout for each, outermost first.
func ExamplePolicy() {
	policy := backoff.NewPolicy(
		backoff.WithGuard(bulkhead.New(20)),
		backoff.WithGuard(breaker.New()),
		backoff.WithRetry(backoff.WithMaxTries(3)),
		backoff.WithTimeout(1*time.Second),
	)

	calls := 0
	action := func(ctx context.Context) (string, error) {
		if calls++; calls < 3 {
			return "", errors.New("connection refused")
		}
		return "ok", nil
	}

	// The example skips its waits; a real caller passes its own context.
	ctx := backoff.WithTestingBypass(context.Background())

	// Reusable across multiple calls.
	val, err := backoff.Execute(ctx, policy, action)
	fmt.Println(val, err, calls)
	// Output:
	// ok <nil> 3
}

// Policy.Execute is Execute for a function that returns only an error.
func ExamplePolicy_Execute() {
	policy := backoff.NewPolicy(backoff.WithRetry(backoff.WithMaxTries(2), backoff.WithBackOff(&backoff.ZeroBackOff{})))
	err := policy.Execute(context.Background(), func(ctx context.Context) error {
		return io.ErrUnexpectedEOF
	})
	var re *backoff.Error
	if errors.As(err, &re) {
		fmt.Printf("%v after %d attempts: %v\n", re.Cause, re.Attempts, re.LastErr)
	}
	// Output:
	// backoff: retries exhausted after 2 attempts: unexpected EOF
}

// The order of the stages is the caller's. Inside the retry stage a guard
// sees every attempt; outside it, the whole retry loop as one call.
func ExampleNewPolicy() {
	var inside, outside counter
	zero := backoff.WithBackOff(&backoff.ZeroBackOff{})
	fails := func(context.Context) error { return errors.New("down") }

	_ = backoff.NewPolicy(backoff.WithRetry(zero), backoff.WithGuard(&inside)).Execute(context.Background(), fails)
	_ = backoff.NewPolicy(backoff.WithGuard(&outside), backoff.WithRetry(zero)).Execute(context.Background(), fails)
	fmt.Println("inside the retry stage:", inside.calls, "calls")
	fmt.Println("outside the retry stage:", outside.calls, "call")
	// Output:
	// inside the retry stage: 3 calls
	// outside the retry stage: 1 call
}

// counter is a Guard of one's own: it admits every call and counts them.
type counter struct{ calls int }

func (c *counter) Allow(context.Context, backoff.Call) (backoff.Permit, error) {
	c.calls++
	return backoff.Permit{}, nil
}

func (c *counter) Record(backoff.Permit, backoff.Outcome) {}

// WithGuard takes any Guard: here a switch that refuses every call while a
// dependency is in maintenance. A refusal ends the call at once, with the
// guard's error as the Cause.
func ExampleWithGuard() {
	sw := &maintenance{}
	policy := backoff.NewPolicy(backoff.WithRetry(), backoff.WithGuard(sw))

	sw.on.Store(true)
	err := policy.Execute(context.Background(), func(context.Context) error { return nil })
	fmt.Println(errors.Is(err, errMaintenance), backoff.IsRefusal(err))
	// Output:
	// true true
}

var errMaintenance = errors.New("in maintenance")

// maintenance refuses every call while on is set.
type maintenance struct{ on atomic.Bool }

func (m *maintenance) Allow(context.Context, backoff.Call) (backoff.Permit, error) {
	if m.on.Load() {
		return backoff.Permit{}, errMaintenance
	}
	return backoff.Permit{}, nil
}

func (m *maintenance) Record(backoff.Permit, backoff.Outcome) {}

// WithRetry takes every RetryOption, with defaults fit for a fleet: full
// jitter, 3 attempts, 30 s spent on retries at most.
func ExampleWithRetry() {
	policy := backoff.NewPolicy(backoff.WithRetry(
		backoff.WithMaxTries(5),
		backoff.RetryIf(io.ErrUnexpectedEOF), // retry this error only
		backoff.WithBackOff(&backoff.ZeroBackOff{}),
	))
	calls := 0
	_, err := backoff.Execute(context.Background(), policy, func(context.Context) (int, error) {
		calls++
		return 0, errors.New("400 Bad Request")
	})
	var re *backoff.Error
	errors.As(err, &re)
	fmt.Println(calls, re.Cause)
	// Output:
	// 1 backoff: permanent error
}

// Inside the retry stage a timeout bounds each attempt, and an attempt
// that runs out of time is retried like any other failure.
func ExampleWithTimeout() {
	policy := backoff.NewPolicy(
		backoff.WithRetry(backoff.WithBackOff(&backoff.ZeroBackOff{})),
		backoff.WithTimeout(10*time.Millisecond),
	)
	calls := 0
	val, err := backoff.Execute(context.Background(), policy, func(ctx context.Context) (string, error) {
		if calls++; calls == 1 {
			<-ctx.Done() // the first attempt hangs until its timeout
			return "", ctx.Err()
		}
		return "answered", nil
	})
	fmt.Println(val, err, calls)
	// Output:
	// answered <nil> 2
}

// WithRecover turns a panic into a *PanicError, which the stages around it
// handle like any other error.
func ExampleWithRecover() {
	policy := backoff.NewPolicy(backoff.WithRetry(backoff.WithBackOff(&backoff.ZeroBackOff{})), backoff.WithRecover())
	calls := 0
	err := policy.Execute(context.Background(), func(context.Context) error {
		if calls++; calls == 1 {
			panic("corrupted cache") // the first attempt panics
		}
		return nil
	})
	fmt.Println(err, calls)
	// Output:
	// <nil> 2
}

// A fallback serves stale data when the call fails: after the retries, on
// a guard's refusal, on a permanent error.
func ExampleWithFallback() {
	cache := map[string]string{"user:7": "Ada (cached)"}
	policy := backoff.NewPolicy(
		backoff.WithFallback(func(ctx context.Context, err error) (string, error) {
			if v, ok := cache["user:7"]; ok {
				return v, nil
			}
			return "", err
		}),
		backoff.WithRetry(backoff.WithBackOff(&backoff.ZeroBackOff{})),
	)
	name, err := backoff.Execute(context.Background(), policy, func(context.Context) (string, error) {
		return "", errors.New("database unreachable")
	})
	fmt.Println(name, err)
	// Output:
	// Ada (cached) <nil>
}

// WithFallbackErr is the fallback of a call that returns only an error:
// here it records the failure and swallows it.
func ExampleWithFallbackErr() {
	policy := backoff.NewPolicy(
		backoff.WithFallbackErr(func(ctx context.Context, err error) error {
			fmt.Println("queued for later:", err)
			return nil
		}),
		backoff.WithRetry(backoff.WithMaxTries(1)),
	)
	err := policy.Execute(context.Background(), func(context.Context) error { return errors.New("broker down") })
	fmt.Println(err)
	// Output:
	// queued for later: broker down
	// <nil>
}

// The operation reads its attempt's state from its context: rotating to a
// fallback endpoint on the third attempt takes two lines.
func ExampleAttemptFrom() {
	endpoints := []string{"primary", "primary", "secondary"}
	fetch := func(ctx context.Context) (string, error) {
		s, _ := backoff.AttemptFrom(ctx)
		endpoint := endpoints[min(s.Attempt, len(endpoints))-1]

		if endpoint == "primary" {
			return "", fmt.Errorf("%s: connection refused", endpoint)
		}
		return "answer from " + endpoint, nil
	}
	val, err := backoff.Do(context.Background(), fetch,
		backoff.WithAttemptState(), backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(5))
	fmt.Println(val, err)
	// Output:
	// answer from secondary <nil>
}

// quotaError is an error of an API client's own: it says how long to wait,
// or that the quota is spent for good.
type quotaError struct {
	wait  time.Duration
	spent bool
}

func (e *quotaError) Error() string             { return "quota exceeded" }
func (e *quotaError) RetryAfter() time.Duration { return e.wait }
func (e *quotaError) CancelAllRetries() bool    { return e.spent }

// Any error with RetryAfter and CancelAllRetries is a Pushback: the driver
// waits as it says, or stops with ErrRetriesCanceled.
func ExamplePushback() {
	calls := 0
	err := backoff.RetryError(func() error {
		calls++
		if calls == 1 {
			return &quotaError{wait: time.Millisecond}
		}
		return fmt.Errorf("listing buckets: %w", &quotaError{spent: true})
	})
	var re *backoff.Error
	errors.As(err, &re)
	fmt.Println(calls, errors.Is(re.Cause, backoff.ErrRetriesCanceled), re.LastErr)
	// Output:
	// 2 true listing buckets: quota exceeded
}

// CheckResult retries on what the result says, not only on the error, and
// releases each result it retries past.
func ExampleCheckResult() {
	type response struct {
		status int
		body   io.Closer
	}
	statuses := []int{503, 503, 200}
	calls := 0
	get := func(ctx context.Context) (response, error) {
		calls++
		return response{status: statuses[calls-1], body: io.NopCloser(nil)}, nil
	}
	resp, err := backoff.Do(context.Background(), get,
		backoff.WithBackOff(&backoff.ZeroBackOff{}),
		backoff.CheckResult(
			func(r response) error {
				if r.status >= 500 {
					return fmt.Errorf("status %d", r.status)
				}
				return nil
			},
			func(r response) { fmt.Println("closing the body of a", r.status); r.body.Close() },
		))
	fmt.Println(resp.status, err)
	// Output:
	// closing the body of a 503
	// closing the body of a 503
	// 200 <nil>
}

// DoErr is Do for a function that returns only an error.
func ExampleDoErr() {
	calls := 0
	err := backoff.DoErr(context.Background(), func(ctx context.Context) error {
		if calls++; calls < 2 {
			return errors.New("not ready")
		}
		return nil
	}, backoff.WithBackOff(&backoff.ZeroBackOff{}))
	fmt.Println(err, calls)
	// Output:
	// <nil> 2
}

// IsPermanent finds the mark as the driver does, through wrapping.
func ExampleIsPermanent() {
	err := fmt.Errorf("decoding the reply: %w", backoff.Permanent(io.ErrUnexpectedEOF))
	fmt.Println(backoff.IsPermanent(err), backoff.IsPermanent(io.ErrUnexpectedEOF))
	// Output:
	// true false
}
