package breaker_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/breaker"
)

// An operator isolates a dependency, lets everything through while it is
// being checked, then hands the decision back to the breaker.
func ExampleBreaker_ForceOpen() {
	cb := breaker.New(breaker.WithStateChange(func(from, to breaker.State) {
		fmt.Printf("%v -> %v\n", from, to)
	}))
	ctx := context.Background()
	call := func(context.Context) error { return nil }

	_ = cb.ForceOpen() // maintenance: no call goes out
	err := cb.Run(ctx, call)
	fmt.Println("refused:", errors.Is(err, breaker.ErrCircuitOpen))

	_ = cb.ForceClosed() // every call goes out, and none trips it
	for range 10 {
		_ = cb.Run(ctx, func(context.Context) error { return errors.New("still warming up") })
	}
	fmt.Println("state:", cb.State())

	_ = cb.Reset() // closed, the counts cleared: the trip rule decides again
	fmt.Printf("forced changes: %d\n", cb.Counts().Forced)
	// Output:
	// closed -> forced-open
	// refused: true
	// forced-open -> forced-closed
	// state: forced-closed
	// forced-closed -> closed
	// forced changes: 3
}

// A breaker that trips when most calls are slow, as well as when half of
// them fail.
func ExampleWithSlowCalls() {
	clk := clock.NewMock()
	cb := breaker.New(
		breaker.WithClock(clk),
		breaker.WithFailureRate(0.5, 5, 20),     // half of the last 20 calls failed, once there are 5
		breaker.WithSlowCalls(time.Second, 0.8), // or 80% of them took longer than 1 s
	)
	slow := func(context.Context) error {
		clk.Add(2 * time.Second) // the dependency answers, but late
		return nil
	}
	for i := range 6 {
		err := cb.Run(context.Background(), slow)
		fmt.Printf("call %d: %v, state %v\n", i+1, err, cb.State())
	}
	fmt.Println("slow calls:", cb.Counts().Slow)
	// Output:
	// call 1: <nil>, state closed
	// call 2: <nil>, state closed
	// call 3: <nil>, state closed
	// call 4: <nil>, state closed
	// call 5: <nil>, state open
	// call 6: breaker: circuit open for 1m0s, state open
	// slow calls: 5
}
