package chaos_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/chaos"
	"github.com/herdsafe/backoff/policy"
)

// An Injector inside a retry stage: every attempt fails with the injected
// error, the retry stage retries it like a real failure, and the function
// is never called.
func Example() {
	errSynthetic := errors.New("synthetic failure")
	injector := chaos.New(chaos.Config{ErrorProbability: 1, InjectedError: errSynthetic})
	p := policy.New(
		policy.Retry(backoff.WithMaxTries(3), backoff.WithBackOff(&backoff.ZeroBackOff{})),
		policy.Guard(injector),
	)
	_, err := policy.Do(context.Background(), p, func(context.Context) (string, error) {
		return "reached the dependency", nil
	})
	var e *backoff.Error
	if errors.As(err, &e) {
		fmt.Println(e.Cause, "|", e.LastErr, "|", e.Attempts, "attempts")
	}
	fmt.Printf("%+v\n", injector.Stats())
	// Output:
	// backoff: retries exhausted | synthetic failure | 3 attempts
	// {Calls:3 InjectedErrors:3 InjectedDelays:0}
}

// Game day for a fallback: half the calls fail, and the fallback serves
// them. The seeded source makes the run the same every time.
func ExampleNew() {
	errSynthetic := errors.New("synthetic failure")
	p := policy.New(
		policy.Fallback(func(ctx context.Context, err error) (string, error) {
			return "cached", nil
		}),
		policy.Guard(chaos.New(chaos.Config{
			ErrorProbability: 0.5,
			InjectedError:    errSynthetic,
			Rand:             chaos.Seeded(3),
		})),
	)
	for range 6 {
		v, _ := policy.Do(context.Background(), p, func(context.Context) (string, error) {
			return "fresh", nil
		})
		fmt.Print(v, " ")
	}
	fmt.Println()
	// Output:
	// cached fresh fresh cached cached fresh
}

// Run wraps a function of your own, outside any Policy, and returns the
// injected error itself.
func ExampleInjector_Run() {
	errSynthetic := errors.New("synthetic failure")
	injector := chaos.New(chaos.Config{ErrorProbability: 1, InjectedError: errSynthetic})
	err := injector.Run(context.Background(), func(context.Context) error {
		fmt.Println("not called")
		return nil
	})
	fmt.Println(err, errors.Is(err, errSynthetic))
	// Output:
	// synthetic failure true
}

// An invalid Config is reported by Validate, and fails any Policy it is
// put in before anything runs.
func ExampleInjector_Validate() {
	injector := chaos.New(chaos.Config{ErrorProbability: 1.5, InjectedError: errors.New("x")})
	fmt.Println(injector.Validate())
	err := policy.New(policy.Guard(injector)).DoErr(context.Background(), func(context.Context) error { return nil })
	fmt.Println(errors.Is(err, backoff.ErrInvalidConfiguration))
	// Output:
	// backoff: invalid configuration: chaos: Config.ErrorProbability is 1.5, not in [0, 1]
	// true
}

// Seeded sources with the same seed give the same draws.
func ExampleSeeded() {
	a, b := chaos.Seeded(1), chaos.Seeded(1)
	fmt.Println(a() == b(), a() == b())
	// Output:
	// true true
}
