package bulkhead_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
)

// A bulkhead of two slots admits two calls at a time and refuses a third
// until one of them is recorded.
func ExampleNew() {
	b := bulkhead.New(2)
	ctx := context.Background()

	for i := 1; i <= 3; i++ {
		_, err := b.Allow(ctx, guard.Call{Attempt: 1})
		fmt.Printf("call %d: %v\n", i, err)
	}
	b.Record(guard.Permit{}, guard.Outcome{}) // the first call ended
	_, err := b.Allow(ctx, guard.Call{Attempt: 1})
	fmt.Println("after a slot was freed:", err)

	s := b.Stats()
	fmt.Printf("in flight %d of %d, refused %d\n", s.InFlight, s.Capacity, s.Refused)
	// Output:
	// call 1: <nil>
	// call 2: <nil>
	// call 3: bulkhead: full
	// after a slot was freed: <nil>
	// in flight 2 of 2, refused 1
}

// Run runs a function in a slot, and frees the slot when it returns.
func ExampleBulkhead_Run() {
	b := bulkhead.New(1)
	ctx := context.Background()

	err := b.Run(ctx, func(ctx context.Context) error {
		// While this call holds the only slot, another is refused.
		inner := b.Run(ctx, func(context.Context) error { return nil })
		fmt.Println("inner call:", inner, errors.Is(inner, bulkhead.ErrBulkheadFull))
		return nil
	})
	fmt.Println("outer call:", err)
	fmt.Println("in flight:", b.Stats().InFlight)
	// Output:
	// inner call: bulkhead: full true
	// outer call: <nil>
	// in flight: 0
}

// As the outermost guard of a Policy, a bulkhead bounds the calls in
// flight across all their retries; its refusal is the Cause of the
// *backoff.Error, and a fallback can answer it.
func ExampleBulkhead_policy() {
	b := bulkhead.New(1)
	p := policy.New(
		policy.Fallback(func(ctx context.Context, err error) (string, error) {
			if errors.Is(err, bulkhead.ErrBulkheadFull) {
				return "busy, try later", nil
			}
			return "", err
		}),
		policy.Guard(b),
		policy.Retry(backoff.WithMaxTries(3)),
	)
	ctx := context.Background()

	fetch := func(context.Context) (string, error) { return "fresh data", nil }
	v, err := policy.Do(ctx, p, fetch)
	fmt.Println(v, err)

	// Hold the only slot, as a slow call in flight would.
	_, _ = b.Allow(ctx, guard.Call{Attempt: 1})
	v, err = policy.Do(ctx, p, fetch)
	fmt.Println(v, err)
	// Output:
	// fresh data <nil>
	// busy, try later <nil>
}

// A priority bulkhead of 10 slots keeps half of them from low-priority
// calls, and the last two for critical ones.
func ExampleNewPriority() {
	b := bulkhead.NewPriority(10) // thresholds 50% for low, 80% for standard
	low := bulkhead.WithPriority(context.Background(), bulkhead.Low)
	critical := bulkhead.WithPriority(context.Background(), bulkhead.Critical)

	admitted := 0
	for {
		if _, err := b.Allow(low, guard.Call{Attempt: 1}); err != nil {
			fmt.Println(err)
			break
		}
		admitted++
	}
	fmt.Println("low calls admitted:", admitted)

	// A context with no priority is standard: admitted up to 8 in flight.
	for range 3 {
		_, err := b.Allow(context.Background(), guard.Call{Attempt: 1})
		fmt.Println("standard:", err)
	}
	for range 3 {
		_, err := b.Allow(critical, guard.Call{Attempt: 1})
		fmt.Println("critical:", err)
	}
	s := b.Stats()
	fmt.Printf("in flight %d; refused low %d, standard %d, critical %d\n",
		s.InFlight, s.RefusedLow, s.RefusedStandard, s.RefusedCritical)
	// Output:
	// bulkhead: low call shed above 50% of capacity
	// low calls admitted: 5
	// standard: <nil>
	// standard: <nil>
	// standard: <nil>
	// critical: <nil>
	// critical: <nil>
	// critical: bulkhead: full: critical call refused at capacity
	// in flight 10; refused low 1, standard 0, critical 1
}

// The priority of a call travels in its context, through every stage of a
// Policy, to the priority bulkhead.
func ExampleWithPriority() {
	b := bulkhead.NewPriority(2, bulkhead.WithThresholds(0.5, 0.5))
	p := policy.New(policy.Guard(b))

	work := func(ctx context.Context) error {
		// While this call holds one of the two slots, a low-priority call
		// would take the bulkhead past 50%; a critical one would not.
		lowErr := p.DoErr(bulkhead.WithPriority(ctx, bulkhead.Low), func(context.Context) error { return nil })
		var shed bulkhead.ShedError
		fmt.Println("low:", errors.As(lowErr, &shed), shed.Priority)
		critErr := p.DoErr(bulkhead.WithPriority(ctx, bulkhead.Critical), func(context.Context) error { return nil })
		fmt.Println("critical:", critErr)
		return nil
	}
	_ = p.DoErr(bulkhead.WithPriority(context.Background(), bulkhead.Critical), work)
	// Output:
	// low: true low
	// critical: <nil>
}
