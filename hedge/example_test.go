package hedge_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/hedge"
	"github.com/herdsafe/backoff/policy"
)

// A hedged read: a second attempt starts if the first has not answered
// within 50 ms, a third 50 ms later. Here the first answers at once, so no
// hedge is sent.
func Example() {
	h := hedge.New(hedge.WithDelay(50*time.Millisecond), hedge.WithMaxAttempts(3))
	read := func(ctx context.Context) (string, error) { return "value", nil }

	v, err := hedge.Do(context.Background(), h, nil, hedge.Idempotent(read))
	fmt.Println(v, err)
	// Output:
	// value <nil>
}

// A slow first attempt: when the delay passes (here on a mock clock, which
// the first attempt moves itself), a second starts and wins; the first is
// cancelled with ErrCanceled.
func ExampleDo() {
	clk := clock.NewMock()
	h := hedge.New(hedge.WithDelay(50*time.Millisecond), hedge.WithClock(clk))

	primary := make(chan error, 1)
	var attempts atomic.Int32
	read := func(ctx context.Context) (string, error) {
		attempt := attempts.Add(1)
		if attempt == 1 {
			clk.Add(50 * time.Millisecond) // the first attempt is slow...
			<-ctx.Done()                   // ...and honours its context
			primary <- context.Cause(ctx)
			return "", ctx.Err()
		}
		return fmt.Sprintf("from attempt %d", attempt), nil
	}

	v, err := hedge.Do(context.Background(), h, nil, hedge.Idempotent(read))
	fmt.Println(v, err)
	fmt.Println("the first attempt:", <-primary)
	// Output:
	// from attempt 2 <nil>
	// the first attempt: hedge: attempt no longer needed
}

// Hedging composes with policies: each attempt runs through the inner
// Policy (here, a short retry), and the stages that must see the whole
// hedged call (here, a fallback) go in a Policy around it.
func ExampleDo_policy() {
	errUnavailable := errors.New("unavailable")
	h := hedge.New(hedge.WithDelay(0), hedge.WithMaxAttempts(2)) // both attempts at once
	inner := policy.New(policy.Retry(backoff.WithMaxTries(2), backoff.WithBackOff(&backoff.ZeroBackOff{})))
	outer := policy.New(policy.Fallback(func(ctx context.Context, err error) (string, error) {
		fmt.Println("hedged call failed:", err)
		return "stale value", nil
	}))
	read := func(ctx context.Context) (string, error) { return "", errUnavailable }

	v, err := policy.Do(context.Background(), outer, func(ctx context.Context) (string, error) {
		return hedge.Do(ctx, h, inner, hedge.Idempotent(read))
	})
	fmt.Println(v, err)
	// Output:
	// hedged call failed: unavailable
	// stale value <nil>
}

// A loser that answered anyway has its result released, as a losing HTTP
// response's body must be closed.
func ExampleWithDiscard() {
	closed := make(chan string, 1)
	h := hedge.New(hedge.WithDelay(0), hedge.WithMaxAttempts(2),
		hedge.WithDiscard(func(conn *connection) { conn.Close(); closed <- conn.name }))

	release := make(chan struct{})
	var attempts atomic.Int32
	open := func(ctx context.Context) (*connection, error) {
		if attempts.Add(1) == 1 {
			<-release // ignores its context
			return &connection{name: "slow"}, nil
		}
		return &connection{name: "fast"}, nil
	}
	conn, _ := hedge.Do(context.Background(), h, nil, hedge.Idempotent(open))
	fmt.Println("using", conn.name)
	close(release)
	fmt.Println("closed", <-closed)
	// Output:
	// using fast
	// closed slow
}

type connection struct{ name string }

func (c *connection) Close() {}

// A budget that refuses every extra attempt suppresses the hedges only:
// the first attempt goes on, and its answer is returned.
func ExampleWithBudget() {
	clk := clock.NewMock()
	h := hedge.New(hedge.WithDelay(50*time.Millisecond), hedge.WithMaxAttempts(3),
		hedge.WithClock(clk), hedge.WithBudget(spent{}))
	read := func(ctx context.Context) (string, error) {
		clk.Add(100 * time.Millisecond) // both hedges are due, and refused
		return "from the first attempt", nil
	}
	v, err := hedge.Do(context.Background(), h, nil, hedge.Idempotent(read))
	fmt.Println(v, err)
	// Output:
	// from the first attempt <nil>
}

// spent is a budget with nothing left.
type spent struct{}

func (spent) Allow(context.Context, guard.Call) (guard.Permit, error) {
	return guard.Permit{}, errors.New("budget spent")
}

func (spent) Record(guard.Permit, guard.Outcome) {}
