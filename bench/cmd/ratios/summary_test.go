package main

import (
	"bytes"
	"strings"
	"testing"
)

// fullSample has a row of every scenario the summary shows, its benchmarks
// in an order other than the summary's, and peers missing from some.
const fullSample = `goos: linux
BenchmarkTransport/bare-2         	1000	1000 ns/op	5000 B/op	60 allocs/op
BenchmarkTransport/herdsafe-2     	1000	1050 ns/op	5100 B/op	61 allocs/op
BenchmarkTransport/retryablehttp-2	1000	2100 ns/op	9000 B/op	90 allocs/op
BenchmarkWaiters/bare-2    	1	5 ns/op	2500 B/waiter	100 cancel-ns	0 leaked-goroutines
BenchmarkWaiters/herdsafe-2	1	5 ns/op	3000 B/waiter	120 cancel-ns	0 leaked-goroutines
BenchmarkWaiters/avast-v4-2	1	5 ns/op	4000 B/waiter	150 cancel-ns	0 leaked-goroutines
BenchmarkWaiters/herdsafe-policy-2	1	5 ns/op	2400 B/waiter	110 cancel-ns	0 leaked-goroutines
BenchmarkWaiters/sethvargo-2	1	5 ns/op	2600 B/waiter	100 cancel-ns	0 leaked-goroutines
BenchmarkBulkheadSuccess/herdsafe-2	1000	40 ns/op	0 B/op	0 allocs/op
BenchmarkBulkheadSuccess/failsafe-2	1000	800 ns/op	352 B/op	13 allocs/op
BenchmarkBreakerSuccess/herdsafe-2 	1000	30 ns/op	0 B/op	0 allocs/op
BenchmarkBreakerSuccess/failsafe-2 	1000	900 ns/op	384 B/op	14 allocs/op
BenchmarkBreakerSuccess/gobreaker-2	1000	50 ns/op	0 B/op	0 allocs/op
BenchmarkComposedSuccess/herdsafe-2	1000	900 ns/op	272 B/op	4 allocs/op
BenchmarkComposedSuccess/failsafe-2	1000	4000 ns/op	1096 B/op	28 allocs/op
BenchmarkParallelNextDelay/herdsafe           	1000	8 ns/op	0 B/op	0 allocs/op
BenchmarkParallelNextDelay/herdsafe-fulljitter	1000	8 ns/op	0 B/op	0 allocs/op
BenchmarkParallelNextDelay/sethvargo          	1000	10 ns/op	0 B/op	0 allocs/op
BenchmarkParallelNextDelay/herdsafe-2           	1000	4 ns/op	0 B/op	0 allocs/op
BenchmarkParallelNextDelay/herdsafe-fulljitter-2	1000	10 ns/op	0 B/op	0 allocs/op
BenchmarkParallelNextDelay/sethvargo-2          	1000	30 ns/op	0 B/op	0 allocs/op
BenchmarkNextDelay/herdsafe-2   	1000	8 ns/op	0 B/op	0 allocs/op
BenchmarkNextDelay/cenkalti-v7-2	1000	10 ns/op	0 B/op	0 allocs/op
BenchmarkSuccessFirstTry/bare-direct-2       	1000	1 ns/op	0 B/op	0 allocs/op
BenchmarkSuccessFirstTry/bare-loop-2         	1000	2 ns/op	0 B/op	0 allocs/op
BenchmarkSuccessFirstTry/herdsafe-2          	1000	20 ns/op	0 B/op	0 allocs/op
BenchmarkSuccessFirstTry/herdsafe-nooptions-2	1000	10 ns/op	0 B/op	0 allocs/op
BenchmarkSuccessFirstTry/herdsafe-policy-2   	1000	5 ns/op	0 B/op	0 allocs/op
BenchmarkSuccessFirstTry/herdsafe-fresh-2    	1000	85 ns/op	80 B/op	1 allocs/op
BenchmarkSuccessFirstTry/herdsafe-retrier-2  	1000	12 ns/op	0 B/op	0 allocs/op
BenchmarkSuccessFirstTry/failsafe-2          	1000	200 ns/op	300 B/op	5 allocs/op
BenchmarkSuccessFirstTry/avast-v5-2          	1000	40 ns/op	0 B/op	0 allocs/op
BenchmarkSuccessFirstTry/cenkalti-v5-2       	1000	100 ns/op	120 B/op	3 allocs/op
BenchmarkThreeAttemptsZeroDelay/bare-loop-2	1000	6 ns/op	0 B/op	0 allocs/op
BenchmarkThreeAttemptsZeroDelay/herdsafe-2 	1000	60 ns/op	0 B/op	0 allocs/op
BenchmarkThreeAttemptsZeroDelay/sethvargo-2	1000	600 ns/op	64 B/op	2 allocs/op
BenchmarkParallelSuccess/herdsafe     	1000	20 ns/op	0 B/op	0 allocs/op
BenchmarkParallelSuccess/cenkalti-v5  	1000	100 ns/op	120 B/op	3 allocs/op
BenchmarkParallelSuccess/herdsafe-2   	1000	12 ns/op	0 B/op	0 allocs/op
BenchmarkParallelSuccess/cenkalti-v5-2	1000	80 ns/op	120 B/op	3 allocs/op
BenchmarkParallelSuccess/herdsafe-policy  	1000	5 ns/op	0 B/op	0 allocs/op
BenchmarkParallelSuccess/herdsafe-policy-2	1000	4 ns/op	0 B/op	0 allocs/op
BenchmarkParallelSuccess/bare-direct      	1000	1 ns/op	0 B/op	0 allocs/op
BenchmarkParallelSuccess/bare-direct-2    	1000	0.5 ns/op	0 B/op	0 allocs/op
BenchmarkParallelSuccess/avast-v5         	1000	6 ns/op	0 B/op	0 allocs/op
BenchmarkParallelSuccess/avast-v5-2       	1000	10 ns/op	0 B/op	0 allocs/op
BenchmarkParallelSuccess/herdsafe-fresh   	1000	70 ns/op	80 B/op	1 allocs/op
BenchmarkParallelSuccess/herdsafe-retrier 	1000	8 ns/op	0 B/op	0 allocs/op
BenchmarkParallelSuccess/herdsafe-retrier-2	1000	6 ns/op	0 B/op	0 allocs/op
BenchmarkThrottleSuccess/herdsafe-2	1000	100 ns/op	0 B/op	0 allocs/op
BenchmarkThrottleSuccess/failsafe-2	1000	400 ns/op	200 B/op	6 allocs/op
BenchmarkRateLimiterSuccess/herdsafe-2	1000	90 ns/op	0 B/op	0 allocs/op
BenchmarkRateLimiterSuccess/failsafe-2	1000	900 ns/op	600 B/op	16 allocs/op
BenchmarkLimiterSuccess/herdsafe-2	1000	120 ns/op	0 B/op	0 allocs/op
BenchmarkLimiterSuccess/failsafe-2	1000	1200 ns/op	496 B/op	15 allocs/op
BenchmarkRetryBudgetSuccess/herdsafe-2	1000	50 ns/op	0 B/op	0 allocs/op
BenchmarkRetryBudgetSuccess/failsafe-2	1000	90 ns/op	120 B/op	4 allocs/op
PASS
`

func report(t *testing.T, input string) string {
	t.Helper()
	r, err := parse(strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	writeReport(&buf, r)
	return buf.String()
}

// table returns the markdown table that follows heading in out: its
// lines up to the first blank line after it starts.
func table(t *testing.T, out, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(out, heading+"\n\n")
	if !ok {
		t.Fatalf("no %q in\n%s", heading, out)
	}
	tbl, _, _ := strings.Cut(rest, "\n\n")
	return strings.TrimSpace(tbl)
}

func TestSummaryComesFirstAndHoldsEveryScenario(t *testing.T) {
	out := report(t, fullSample)
	const heading = "## Summary: herdsafe ÷ each peer (median of the runs; below 1 is better)"
	if !strings.HasPrefix(out, heading+"\n") {
		t.Fatalf("the report does not start with the summary:\n%s", out)
	}
	want := strings.TrimSpace(`
| scenario | herdsafe row | unit | cenkalti-v5 | cenkalti-v7 | sethvargo | avast-v4 | avast-v5 | failsafe | gobreaker | retryablehttp | bare-direct | bare-loop | bare |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
| SuccessFirstTry | herdsafe | sec/op | 0.20× | – | – | – | 0.50× | 0.10× | – | – | 20.0× | 10.0× | – |
| SuccessFirstTry | herdsafe-nooptions | sec/op | 0.10× | – | – | – | 0.25× | 0.05× | – | – | 10.0× | 5.00× | – |
| SuccessFirstTry | herdsafe-policy | sec/op | 0.05× | – | – | – | 0.12× | 0.03× | – | – | 5.00× | 2.50× | – |
| SuccessFirstTry | herdsafe-fresh | sec/op | 0.85× | – | – | – | 2.12× | 0.42× | – | – | 85.0× | 42.5× | – |
| SuccessFirstTry | herdsafe-retrier | sec/op | 0.12× | – | – | – | 0.30× | 0.06× | – | – | 12.0× | 6.00× | – |
| ParallelSuccess, -cpu 1 | herdsafe | sec/op | 0.20× | – | – | – | 3.33× | – | – | – | 20.0× | – | – |
| ParallelSuccess, -cpu 1 | herdsafe-policy | sec/op | 0.05× | – | – | – | 0.83× | – | – | – | 5.00× | – | – |
| ParallelSuccess, -cpu 1 | herdsafe-retrier | sec/op | 0.08× | – | – | – | 1.33× | – | – | – | 8.00× | – | – |
| ParallelSuccess, -cpu 1 | herdsafe-fresh | sec/op | 0.70× | – | – | – | 11.7× | – | – | – | 70.0× | – | – |
| ParallelSuccess, -cpu 2 | herdsafe | sec/op | 0.15× | – | – | – | 1.20× | – | – | – | 24.0× | – | – |
| ParallelSuccess, -cpu 2 | herdsafe-policy | sec/op | 0.05× | – | – | – | 0.40× | – | – | – | 8.00× | – | – |
| ParallelSuccess, -cpu 2 | herdsafe-retrier | sec/op | 0.07× | – | – | – | 0.60× | – | – | – | 12.0× | – | – |
| ThreeAttemptsZeroDelay | herdsafe | sec/op | – | – | 0.10× | – | – | – | – | – | – | 10.0× | – |
| NextDelay | herdsafe | sec/op | – | 0.80× | – | – | – | – | – | – | – | – | – |
| ParallelNextDelay, -cpu 1 | herdsafe | sec/op | – | – | 0.80× | – | – | – | – | – | – | – | – |
| ParallelNextDelay, -cpu 2 | herdsafe | sec/op | – | – | 0.13× | – | – | – | – | – | – | – | – |
| Waiters | herdsafe | B/waiter | – | – | 1.15× | 0.75× | – | – | – | – | – | – | 1.20× |
| Waiters | herdsafe | cancel-ns | – | – | 1.20× | 0.80× | – | – | – | – | – | – | 1.20× |
| Waiters | herdsafe-policy | B/waiter | – | – | 0.92× | 0.60× | – | – | – | – | – | – | 0.96× |
| Waiters | herdsafe-policy | cancel-ns | – | – | 1.10× | 0.73× | – | – | – | – | – | – | 1.10× |
| Transport | herdsafe | sec/op | – | – | – | – | – | – | – | 0.50× | – | – | 1.05× |
| ComposedSuccess | herdsafe | sec/op | – | – | – | – | – | 0.23× | – | – | – | – | – |
| BreakerSuccess | herdsafe | sec/op | – | – | – | – | – | 0.03× | 0.60× | – | – | – | – |
| BulkheadSuccess | herdsafe | sec/op | – | – | – | – | – | 0.05× | – | – | – | – | – |
| ThrottleSuccess | herdsafe | sec/op | – | – | – | – | – | 0.25× | – | – | – | – | – |
| RateLimiterSuccess | herdsafe | sec/op | – | – | – | – | – | 0.10× | – | – | – | – | – |
| LimiterSuccess | herdsafe | sec/op | – | – | – | – | – | 0.10× | – | – | – | – | – |
| RetryBudgetSuccess | herdsafe | sec/op | – | – | – | – | – | 0.56× | – | – | – | – | – |
`)
	if got := table(t, out, heading); got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
	// The detailed tables, the scaling and the targets follow, in that
	// order.
	last := 0
	for _, h := range []string{"## Ratios:", "### SuccessFirstTry (GOMAXPROCS 2)", "## Scaling:", "## Targets"} {
		i := strings.Index(out, h)
		if i < last {
			t.Errorf("%q at %d, before what precedes it (%d)", h, i, last)
		}
		last = i
	}
}

func TestScalingShowsEveryRow(t *testing.T) {
	out := report(t, fullSample)
	want := strings.TrimSpace(`
| benchmark | -cpu | herdsafe | herdsafe-fulljitter | herdsafe-policy | herdsafe-fresh | herdsafe-retrier | cenkalti-v5 | sethvargo | avast-v5 | bare-direct |
|---|---|---|---|---|---|---|---|---|---|---|
| ParallelNextDelay | 2 ÷ 1 | 0.50× | 1.25× | – | – | – | – | 3.00× | – | – |
| ParallelSuccess | 2 ÷ 1 | 0.60× | – | 0.80× | – | 0.75× | 0.80× | – | 1.67× | 0.50× |
`)
	got := table(t, out, "## Scaling: time/op at the largest -cpu ÷ at -cpu 1, each row against itself (at most 1: no shared lock)")
	if got != want {
		t.Errorf("scaling:\n%s\nwant:\n%s", got, want)
	}
}

func TestSummaryEmptyWithoutScenarios(t *testing.T) {
	out := report(t, "BenchmarkOther/herdsafe-2\t10\t5 ns/op\nBenchmarkOther/x-2\t10\t6 ns/op\n")
	if strings.Contains(out, "## Summary") {
		t.Errorf("a summary for a benchmark it does not know:\n%s", out)
	}
	if !strings.Contains(out, "### Other (GOMAXPROCS 2)") {
		t.Errorf("no detailed table for it:\n%s", out)
	}
}
