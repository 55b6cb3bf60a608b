package herd_test

import (
	"fmt"

	"github.com/herdsafe/backoff/herd"
)

// Three tiers of three tries over a dependency that is down for 30 s:
// the calls it receives per user call in each phase, and how long after
// it came back the chain was healthy again.
func ExampleLayers() {
	fmt.Println("strategy  warmup   down  healthy  recovery")
	for _, s := range herd.LayersStrategies() {
		res, err := herd.Layers(herd.LayersConfig{}, s)
		if err != nil {
			fmt.Println(err)
			return
		}
		p := res.Phases
		fmt.Printf("%-8s  %5.2f× %5.2f×  %5.2f×  %v\n", s, p[0].Amplification(), p[1].Amplification(), p[2].Amplification(), res.Recovery)
	}
	// Output:
	// strategy  warmup   down  healthy  recovery
	// retry      1.00× 27.00×   1.00×  0s
	// signal     1.00×  3.00×   1.00×  0s
	// budget     1.00×  1.00×   1.00×  0s
	// shed       1.00×  2.00×   1.00×  0s
}
