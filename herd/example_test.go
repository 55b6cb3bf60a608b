package herd_test

import (
	"fmt"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/herd"
)

// Check a policy before shipping it: simulate a herd of 100 clients
// contending for one row, with the policy and with exponential backoff
// without jitter, and compare the work each put on the server. Copy this
// into a test of your own and replace the policy with yours.
func Example() {
	mine := func() backoff.BackOff {
		return backoff.NewExponentialBackOff(
			backoff.WithInitialInterval(5*time.Millisecond),
			backoff.WithMaxInterval(2*time.Second),
			backoff.WithMultiplier(2),
			backoff.WithJitter(backoff.FullJitter),
		)
	}

	cfg := herd.Config{Scenario: herd.OCC, Clients: 100, Seed: 1, NewPolicy: mine}
	got := herd.Simulate(cfg)
	if got.Err != nil {
		fmt.Println(got.Err)
		return
	}
	cfg.NewPolicy = herd.NoJitter(herd.DefaultBase, herd.DefaultCap)
	baseline := herd.Simulate(cfg)

	fmt.Println("every client succeeded:", got.Succeeded == got.Clients)
	fmt.Println("less than half the work of no jitter:", 2*got.Calls < baseline.Calls)
	fmt.Println("done sooner than no jitter:", got.Completion < baseline.Completion)
	// Output:
	// every client succeeded: true
	// less than half the work of no jitter: true
	// done sooner than no jitter: true
}

// A Config that cannot be simulated is reported, naming the field.
func ExampleConfig_Validate() {
	cfg := herd.Config{Scenario: herd.Restart, Clients: 0, NewPolicy: herd.Immediate()}
	fmt.Println(cfg.Validate())
	fmt.Println(herd.Simulate(cfg).Err != nil)
	// Output:
	// herd: invalid configuration: Clients is 0; it must lie in [1, 1000000]
	// true
}

// Strategies lists the policies the command compares.
func ExampleStrategies() {
	for _, s := range herd.Strategies(herd.DefaultBase, herd.DefaultCap) {
		r := herd.Simulate(herd.Config{Scenario: herd.Restart, Clients: 50, Seed: 1, NewPolicy: s.NewPolicy})
		fmt.Printf("%-12s all reconnected: %v\n", s.Name, r.Succeeded == r.Clients)
	}
	// Output:
	// no-jitter    all reconnected: true
	// full         all reconnected: true
	// equal        all reconnected: true
	// decorrelated all reconnected: true
	// default      all reconnected: true
	// immediate    all reconnected: true
}
