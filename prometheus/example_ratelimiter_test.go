package prombackoff_test

import (
	"context"
	"fmt"

	"github.com/herdsafe/backoff/guard"
	prombackoff "github.com/herdsafe/backoff/prometheus"
	"github.com/herdsafe/backoff/ratelimit"
	"github.com/prometheus/client_golang/prometheus"
)

// A rate limiter's figures, read at each scrape: here after a burst of
// three calls against a bucket of two.
func ExampleInstrumenter_Observe() {
	reg := prometheus.NewRegistry()
	in, err := prombackoff.New(reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	lim := ratelimit.New(100, 2) // 100 calls a second, bursts of 2
	if _, err := in.Observe("api", lim); err != nil {
		fmt.Println(err)
		return
	}
	for range 3 {
		_, _ = lim.Allow(context.Background(), guard.Call{Attempt: 1})
	}
	families, err := reg.Gather()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range families {
		switch f.GetName() {
		case "backoff_ratelimit_rate", "backoff_ratelimit_burst", "backoff_ratelimit_refusals_total":
			m := f.GetMetric()[0]
			fmt.Println(f.GetName(), m.GetGauge().GetValue()+m.GetCounter().GetValue())
		}
	}
	// Output:
	// backoff_ratelimit_burst 2
	// backoff_ratelimit_rate 100
	// backoff_ratelimit_refusals_total 1
}
