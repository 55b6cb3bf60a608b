package main

import (
	"strings"
	"testing"
)

const sample = `goos: linux
BenchmarkSuccessFirstTry/herdsafe-2   	1000	10.0 ns/op	0 B/op	0 allocs/op
BenchmarkSuccessFirstTry/herdsafe-2   	1000	30.0 ns/op	0 B/op	0 allocs/op
BenchmarkSuccessFirstTry/herdsafe-2   	1000	20.0 ns/op	0 B/op	0 allocs/op
BenchmarkSuccessFirstTry/herdsafe-policy-2	1000	5 ns/op	0 B/op	0 allocs/op
BenchmarkSuccessFirstTry/herdsafe-policy-2	1000	40 ns/op	0 B/op	0 allocs/op
BenchmarkSuccessFirstTry/herdsafe-policy-2	1000	18 ns/op	0 B/op	0 allocs/op
BenchmarkSuccessFirstTry/avast-v5-2   	1000	24 ns/op	0 B/op	0 allocs/op
BenchmarkSuccessFirstTry/cenkalti-v5-2	1000	100 ns/op	120 B/op	3 allocs/op
BenchmarkSuccessFirstTry/bare-direct-2	1000	1 ns/op	0 B/op	0 allocs/op
BenchmarkParallelSuccess/herdsafe     	1000	20 ns/op
BenchmarkParallelSuccess/herdsafe-2   	1000	12 ns/op
BenchmarkWaiters/bare-2	1	5 ns/op	4000 B/waiter	100 cancel-ns	0 leaked-goroutines
BenchmarkWaiters/herdsafe-2	1	5 ns/op	4400 B/waiter	110 cancel-ns	0 leaked-goroutines
PASS
`

func TestParseTakesMedianAndProcs(t *testing.T) {
	r, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := r.median(key{"SuccessFirstTry", "herdsafe", 2, "sec/op"}); got != 20e-9 {
		t.Errorf("median = %g, want 20e-9", got)
	}
	if got, _ := r.median(key{"ParallelSuccess", "herdsafe", 1, "sec/op"}); got != 20e-9 {
		t.Errorf("-cpu 1 row = %g, want 20e-9", got)
	}
	if got, ok := r.median(key{"SuccessFirstTry", "cenkalti-v5", 2, "allocs/op"}); !ok || got != 3 {
		t.Errorf("the -v5 of a name is not a GOMAXPROCS suffix: got %g, %v", got, ok)
	}
}

// TestTargets checks that a target is a ratio of medians, that a target
// against a row the run lacks is not met, and that the rows with no
// target of their own get none.
func TestTargets(t *testing.T) {
	got := checks(t, sample)
	for _, w := range []struct {
		target, measured string
		ok               bool
	}{
		// The median, 18 ns, against 24: met. The mean (21 ns) would
		// not be.
		{"SuccessFirstTry/herdsafe-policy: sec/op ≤ 0.8× avast-v5", "0.75× of avast-v5", true},
		{"SuccessFirstTry/herdsafe-policy: 0 allocs/op", "0", true},
		// No sethvargo row in Waiters, nor a herdsafe-fresh row at all.
		{"Waiters/herdsafe: B/waiter ≤ sethvargo's", "no data", false},
		{"SuccessFirstTry/herdsafe-fresh: ≤ 1 allocs/op", "no data", false},
	} {
		c, found := got[w.target]
		switch {
		case !found:
			t.Errorf("target %q not evaluated; have %v", w.target, got)
		case c.got != w.measured || c.ok != w.ok:
			t.Errorf("%s: measured %q, met %v; want %q, %v", w.target, c.got, c.ok, w.measured, w.ok)
		}
	}
	for name := range got {
		if strings.HasPrefix(name, "SuccessFirstTry/herdsafe:") || strings.HasPrefix(name, "ParallelSuccess/herdsafe:") {
			t.Errorf("target %q set; the row herdsafe has no target on the success path", name)
		}
	}
}

func TestRatioFormat(t *testing.T) {
	for _, c := range []struct {
		a, b float64
		want string
	}{{0, 0, "="}, {0, 5, "0×"}, {5, 0, "∞"}, {1, 4, "0.25×"}, {30, 2, "15.0×"}} {
		if got := ratio(c.a, c.b); got != c.want {
			t.Errorf("ratio(%g, %g) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

// checks evaluates the targets of input, by name.
func checks(t *testing.T, input string) map[string]check {
	t.Helper()
	r, err := parse(strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]check{}
	for _, c := range targets(r) {
		if _, dup := got[c.target]; dup {
			t.Errorf("target %q evaluated twice", c.target)
		}
		got[c.target] = c
	}
	return got
}

// TestTargetsOfTheReshape checks, on fullSample, every target evaluated:
// the success path of herdsafe-fresh and herdsafe-policy (in
// SuccessFirstTry and at each -cpu of ParallelSuccess), the zero-delay
// path, the bytes per waiter, the composed policy and the guards; what each
// is measured against; and that no other target is set.
func TestTargetsOfTheReshape(t *testing.T) {
	got := checks(t, fullSample)
	const perCall = "≤ 0.8× the fastest per-call peer (cenkalti-v5, cenkalti-v7, sethvargo, avast-v4)"
	want := []struct {
		target, measured string
		ok               bool
	}{
		{"SuccessFirstTry/herdsafe-fresh: ≤ 1 allocs/op", "1", true},
		// 85 ns against cenkalti-v5's 100: avast-v5 (40) and failsafe
		// reuse a retrier, so they are not per-call peers.
		{"SuccessFirstTry/herdsafe-fresh: sec/op " + perCall, "0.85× of cenkalti-v5", false},
		{"SuccessFirstTry/herdsafe-policy: 0 allocs/op", "0", true},
		// Against avast-v5's 40 ns, not the fastest row (bare-direct).
		{"SuccessFirstTry/herdsafe-policy: sec/op ≤ 0.8× avast-v5", "0.12× of avast-v5", true},
		{"ParallelSuccess/herdsafe-fresh (-cpu 1): ≤ 1 allocs/op", "1", true},
		{"ParallelSuccess/herdsafe-fresh (-cpu 1): sec/op " + perCall, "0.70× of cenkalti-v5", true},
		{"ParallelSuccess/herdsafe-policy (-cpu 1): 0 allocs/op", "0", true},
		{"ParallelSuccess/herdsafe-policy (-cpu 1): sec/op ≤ 0.8× avast-v5", "0.83× of avast-v5", false},
		// herdsafe-fresh did not run at -cpu 2: its targets there are
		// not met.
		{"ParallelSuccess/herdsafe-fresh (-cpu 2): ≤ 1 allocs/op", "no data", false},
		{"ParallelSuccess/herdsafe-fresh (-cpu 2): sec/op " + perCall, "no data", false},
		{"ParallelSuccess/herdsafe-policy (-cpu 2): 0 allocs/op", "0", true},
		{"ParallelSuccess/herdsafe-policy (-cpu 2): sec/op ≤ 0.8× avast-v5", "0.40× of avast-v5", true},
		{"ThreeAttemptsZeroDelay/herdsafe: 0 allocs/op", "0", true},
		// Against the fastest library, sethvargo's 600 ns, not bare-loop.
		{"ThreeAttemptsZeroDelay/herdsafe: sec/op ≤ 1/6 of the fastest peer's time", "0.10× of sethvargo", true},
		{"Waiters/herdsafe: B/waiter ≤ sethvargo's", "1.15× of sethvargo", false},
		{"Waiters/herdsafe-policy: B/waiter ≤ sethvargo's", "0.92× of sethvargo", true},
		{"ComposedSuccess/herdsafe: sec/op ≤ 0.25× failsafe", "0.23× of failsafe", true},
		{"BreakerSuccess/herdsafe: 0 allocs/op", "0", true},
		// The nearest peer is the faster: gobreaker's 50 ns, not
		// failsafe's 900.
		{"BreakerSuccess/herdsafe: sec/op ≤ 0.5× the nearest peer (the faster of gobreaker and failsafe)", "0.60× of gobreaker", false},
		{"BulkheadSuccess/herdsafe: 0 allocs/op", "0", true},
		{"BulkheadSuccess/herdsafe: sec/op ≤ 0.5× failsafe", "0.05× of failsafe", true},
		{"ThrottleSuccess/herdsafe: 0 allocs/op", "0", true},
		{"ThrottleSuccess/herdsafe: sec/op ≤ 0.5× failsafe", "0.25× of failsafe", true},
		{"RateLimiterSuccess/herdsafe: 0 allocs/op", "0", true},
		{"RateLimiterSuccess/herdsafe: sec/op ≤ 0.5× failsafe", "0.10× of failsafe", true},
		{"LimiterSuccess/herdsafe: 0 allocs/op", "0", true},
		{"LimiterSuccess/herdsafe: sec/op ≤ 0.5× failsafe", "0.10× of failsafe", true},
		{"RetryBudgetSuccess/herdsafe: 0 allocs/op", "0", true},
		{"RetryBudgetSuccess/herdsafe: sec/op ≤ 0.5× failsafe", "0.56× of failsafe", false},
	}
	wanted := map[string]bool{}
	for _, w := range want {
		wanted[w.target] = true
		c, found := got[w.target]
		switch {
		case !found:
			t.Errorf("target %q not evaluated", w.target)
		case c.got != w.measured || c.ok != w.ok:
			t.Errorf("%s: measured %q, met %v; want %q, %v", w.target, c.got, c.ok, w.measured, w.ok)
		}
	}
	for name := range got {
		if !wanted[name] {
			t.Errorf("target %q set; it is none of the targets", name)
		}
	}
}

// A row with too many allocations misses its allocation target (one
// allocation on the zero-delay path is one too many), and a target whose
// rows are missing says so rather than passing.
func TestTargetsFailWithoutData(t *testing.T) {
	got := checks(t, `BenchmarkSuccessFirstTry/herdsafe-fresh-2	1000	50 ns/op	160 B/op	2 allocs/op
BenchmarkThreeAttemptsZeroDelay/herdsafe-2	1000	60 ns/op	16 B/op	1 allocs/op
BenchmarkBulkheadSuccess/herdsafe-2	1000	40 ns/op	0 B/op	1 allocs/op
BenchmarkComposedSuccess/herdsafe-2	1000	900 ns/op	272 B/op	4 allocs/op
BenchmarkWaiters/herdsafe-2	1	5 ns/op	2400 B/waiter	100 cancel-ns	0 leaked-goroutines
`)
	for name, measured := range map[string]string{
		"SuccessFirstTry/herdsafe-fresh: ≤ 1 allocs/op": "2",
		"SuccessFirstTry/herdsafe-fresh: sec/op ≤ 0.8× the fastest per-call peer (cenkalti-v5, cenkalti-v7, sethvargo, avast-v4)": "no data",
		"SuccessFirstTry/herdsafe-policy: 0 allocs/op":                             "no data",
		"SuccessFirstTry/herdsafe-policy: sec/op ≤ 0.8× avast-v5":                  "no data",
		"ThreeAttemptsZeroDelay/herdsafe: 0 allocs/op":                             "1",
		"ThreeAttemptsZeroDelay/herdsafe: sec/op ≤ 1/6 of the fastest peer's time": "no data",
		"Waiters/herdsafe: B/waiter ≤ sethvargo's":                                 "no data",
		"Waiters/herdsafe-policy: B/waiter ≤ sethvargo's":                          "no data",
		"BulkheadSuccess/herdsafe: 0 allocs/op":                                    "1",
		"BulkheadSuccess/herdsafe: sec/op ≤ 0.5× failsafe":                         "no data",
		"ComposedSuccess/herdsafe: sec/op ≤ 0.25× failsafe":                        "no data",
	} {
		c, found := got[name]
		if !found || c.ok || c.got != measured {
			t.Errorf("%s: found %v, measured %q, met %v; want %q and not met", name, found, c.got, c.ok, measured)
		}
	}
}
