package herd_test

import (
	"fmt"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/herd"
	"github.com/herdsafe/backoff/policy"
)

// Check a BackOff before shipping it: simulate a herd of 100 clients
// contending for one row, with the BackOff and with exponential backoff
// without jitter, and compare the work each put on the server. Copy this
// into a test of your own and replace the BackOff with yours.
func Example() {
	mine := func() backoff.BackOff {
		return &backoff.ExponentialBackOff{
			InitialInterval: 5 * time.Millisecond,
			MaxInterval:     2 * time.Second,
			Multiplier:      2,
			Jitter:          backoff.FullJitter,
		}
	}

	cfg := herd.Config{Scenario: herd.OCC, Clients: 100, Seed: 1, NewBackOff: mine}
	got := herd.Simulate(cfg)
	if got.Err != nil {
		fmt.Println(got.Err)
		return
	}
	cfg.NewBackOff = herd.NoJitter(herd.DefaultBase, herd.DefaultCap)
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
	cfg := herd.Config{Scenario: herd.Restart, Clients: 0, NewBackOff: herd.Immediate()}
	fmt.Println(cfg.Validate())
	fmt.Println(herd.Simulate(cfg).Err != nil)
	// Output:
	// backoff: invalid configuration: herd: Clients is 0; it must lie in [1, 100000]
	// true
}

// Strategies lists the BackOffs the command compares.
func ExampleStrategies() {
	for _, s := range herd.Strategies(herd.DefaultBase, herd.DefaultCap) {
		r := herd.Simulate(herd.Config{Scenario: herd.Restart, Clients: 50, Seed: 1, NewBackOff: s.NewBackOff})
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

// Check what a guard does to a fleet whose dependency goes down: ten
// clients, each starting 50 user calls a second, retry up to three times;
// with a retry budget of 10% of their requests in every client, the load
// of the outage stays within 1.1 times the base load. Replace the budget
// with the guards of your own Policy, in its order.
func Example_outage() {
	cfg := herd.Config{Scenario: herd.Outage, Clients: 10, Rate: 50, Seed: 1,
		Phases: herd.Phases{Warmup: 11 * time.Second, Down: 10 * time.Second, Degraded: 2 * time.Second,
			Healthy: 2 * time.Second, DegradedFailures: 0.3},
		NewBackOff: func() backoff.BackOff { return policy.DefaultBackOff() },
	}
	retries := herd.Simulate(cfg)
	cfg.NewGuards = func(clk clock.Clock, _ func() float64) []guard.Guard {
		return []guard.Guard{budget.NewRatio(budget.WithClock(clk), budget.WithRetryRatio(0.1), budget.WithMinRetriesPerSecond(0))}
	}
	budgeted := herd.Simulate(cfg)
	for _, r := range []herd.Result{retries, budgeted} {
		if r.Err != nil {
			fmt.Println(r.Err)
			return
		}
	}

	down := func(r herd.Result) float64 { return r.Outage.Phases[herd.PhaseDown].Amplification() }
	fmt.Printf("retries alone, while down: %.1f× the base load\n", down(retries))
	fmt.Printf("with the budget, while down: %.1f× the base load\n", down(budgeted))
	fmt.Println("back to normal within a second, both:", retries.Outage.Recovery < time.Second && budgeted.Outage.Recovery < time.Second)
	// Output:
	// retries alone, while down: 3.0× the base load
	// with the budget, while down: 1.1× the base load
	// back to normal within a second, both: true
}

// OutageStrategies lists the guards the command compares when the
// dependency goes down, here on a small fleet over short phases: the load
// each lets through while the dependency is down, relative to the base
// load. The outage lasts one window of the ratio budgets, which starts
// inside one of its tenths (the clients' windows start at random
// offsets): a budget of 10% lets a tenth of it more through.
func ExampleOutageStrategies() {
	for _, s := range herd.OutageStrategies() {
		r := herd.Simulate(herd.Config{Scenario: herd.Outage, Clients: 2, Rate: 100, Seed: 1,
			Phases:     herd.Phases{Warmup: 11 * time.Second, Down: 10 * time.Second, Healthy: time.Second},
			NewBackOff: s.NewBackOff, NewGuards: s.NewGuards})
		fmt.Printf("%-12s %.2f×\n", s.Name, r.Outage.Phases[herd.PhaseDown].Amplification())
	}
	// Output:
	// retry        2.98×
	// token-bucket 1.00×
	// ratio        1.37×
	// ratio-10     1.17×
	// breaker      0.01×
	// throttle     2.23×
	// combined     0.00×
}

// Check what a concurrency guard does to a server with more work than it
// can do: one client sending twice the capacity of a server of 20
// workers, through each strategy the command compares; goodput is the
// calls answered in time per second over the server's capacity, p99 the
// latency of the calls sent over the no-load latency. Replace a strategy's
// guards with your own limiter (WithClock(clk) is what runs it on the
// simulation's virtual time).
func ExampleOverloadStrategies() {
	cfg := herd.Config{Scenario: herd.Overload, Clients: 1, Seed: 1, Server: herd.Server{Workers: 20,
		Stages: []herd.Stage{
			{Name: "warmup", Duration: 2 * time.Second, Load: 0.5, Capacity: 1},
			{Name: "overload", Duration: 6 * time.Second, Load: 2, Capacity: 1},
		}}}
	for _, s := range herd.OverloadStrategies(cfg) {
		cfg.NewGuards = s.NewGuards
		r := herd.Simulate(cfg)
		if r.Err != nil {
			fmt.Println(r.Err)
			return
		}
		m := r.Overload.Measured
		fmt.Printf("%-17s goodput %.2f, p99 %4.1f× the no-load mean, %4.1f× the no-load p99\n",
			s.Name, m.Goodput, m.P99X(r.Overload.NoLoad), float64(m.P99)/float64(r.Overload.NoLoadP99))
	}
	// Output:
	// none              goodput 0.32, p99 25.0× the no-load mean,  8.4× the no-load p99
	// bulkhead          goodput 0.94, p99  3.0× the no-load mean,  1.0× the no-load p99
	// adaptive-gradient goodput 0.94, p99  3.1× the no-load mean,  1.0× the no-load p99
	// adaptive-vegas    goodput 0.89, p99  3.0× the no-load mean,  1.0× the no-load p99
}
