package herd_test

import (
	"fmt"

	"github.com/herdsafe/backoff/herd"
)

// Close the loop: 1,000 clients of httpretry, with full jitter, reconnect
// to a server that serves 10 requests at once and sheds the rest, with a
// bare 503 or with httpshed's Retry-After.
func Example_pushback() {
	full := herd.FullJitter(herd.DefaultBase, herd.DefaultCap)
	for _, sc := range []herd.Scenario{herd.Shed, herd.Pushback} {
		r := herd.Simulate(herd.Config{Scenario: sc, Clients: 1000, NewBackOff: full, Seed: 1})
		if r.Err != nil {
			fmt.Println(r.Err)
			return
		}
		fmt.Printf("%-8s %5d calls, all %d served by %.2f s, at most %d calls in 10 ms\n",
			sc, r.Calls, r.Succeeded, r.Completion.Seconds(), r.PeakLoad)
	}
	// Output:
	// shed      7592 calls, all 1000 served by 2.32 s, at most 736 calls in 10 ms
	// pushback  1995 calls, all 1000 served by 5.20 s, at most 505 calls in 10 ms
}
