package main

import (
	"strings"
	"testing"
)

const sample = `goos: linux
BenchmarkSuccessFirstTry/herdsafe-2   	1000	10.0 ns/op	0 B/op	0 allocs/op
BenchmarkSuccessFirstTry/herdsafe-2   	1000	30.0 ns/op	0 B/op	0 allocs/op
BenchmarkSuccessFirstTry/herdsafe-2   	1000	20.0 ns/op	0 B/op	0 allocs/op
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

func TestTargets(t *testing.T) {
	r, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"SuccessFirstTry/herdsafe: 0 allocs/op":                             true,
		"SuccessFirstTry/herdsafe: sec/op ≤ 1/5 of the fastest peer's time": true,  // 20 ≤ 100/5
		"ParallelSuccess/herdsafe: time/op at -cpu 2 ≤ at -cpu 1":           true,  // 12 ≤ 20
		"Waiters/herdsafe: B/waiter within 5% of bare":                      false, // 4400 > 4200
		"Waiters/herdsafe: cancel-ns within 20% of bare":                    true,
		"Waiters/herdsafe: 0 leaked goroutines":                             true,
	}
	got := map[string]bool{}
	for _, c := range targets(r) {
		got[c.target] = c.ok
	}
	for name, ok := range want {
		v, found := got[name]
		if !found {
			t.Errorf("target %q not evaluated; have %v", name, got)
			continue
		}
		if v != ok {
			t.Errorf("%s: met = %v, want %v", name, v, ok)
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

// TestNewRowAndGuardTargets checks the targets of the Policy rows, the
// guards and the composed policy on fullSample, what each is measured
// against, and that the common success targets are not set for the rows
// with targets of their own.
func TestNewRowAndGuardTargets(t *testing.T) {
	got := checks(t, fullSample)
	const perCall = "≤ 0.8× the fastest per-call peer (cenkalti-v5, cenkalti-v7, sethvargo, avast-v4)"
	want := []struct {
		target, measured string
		ok               bool
	}{
		{"SuccessFirstTry/herdsafe-policy: 0 allocs/op", "0", true},
		{"SuccessFirstTry/herdsafe-policy: sec/op ≤ 6× bare-direct", "5.00× of bare-direct", true},
		{"SuccessFirstTry/herdsafe-fresh: ≤ 1 allocs/op", "1", true},
		// 85 ns against cenkalti-v5's 100: avast-v5 (40) and failsafe
		// reuse a retrier, so they are not per-call peers.
		{"SuccessFirstTry/herdsafe-fresh: sec/op " + perCall, "0.85× of cenkalti-v5", false},
		{"ParallelSuccess/herdsafe-policy (-cpu 1): 0 allocs/op", "0", true},
		{"ParallelSuccess/herdsafe-policy (-cpu 1): sec/op ≤ 6× bare-direct", "5.00× of bare-direct", true},
		{"ParallelSuccess/herdsafe-policy (-cpu 2): sec/op ≤ 6× bare-direct", "8.00× of bare-direct", false},
		{"Waiters/herdsafe: B/waiter ≤ sethvargo's", "1.15× of sethvargo", false},
		{"Waiters/herdsafe-policy: B/waiter ≤ sethvargo's", "0.92× of sethvargo", true},
		{"Waiters/herdsafe-policy: B/waiter within 5% of bare", "0.96× of bare", true},
		{"Waiters/herdsafe-policy: 0 leaked goroutines", "0", true},
		{"ComposedSuccess/herdsafe: sec/op ≤ 0.25× failsafe", "0.23× of failsafe", true},
		{"BreakerSuccess/herdsafe: 0 allocs/op", "0", true},
		// The nearest peer is the faster: gobreaker's 50 ns, not
		// failsafe's 900.
		{"BreakerSuccess/herdsafe: sec/op ≤ 0.5× the nearest peer (the faster of gobreaker and failsafe)", "0.60× of gobreaker", false},
		{"BulkheadSuccess/herdsafe: 0 allocs/op", "0", true},
		{"BulkheadSuccess/herdsafe: sec/op ≤ 0.5× failsafe", "0.05× of failsafe", true},
	}
	for _, w := range want {
		c, found := got[w.target]
		switch {
		case !found:
			t.Errorf("target %q not evaluated", w.target)
		case c.got != w.measured || c.ok != w.ok:
			t.Errorf("%s: measured %q, met %v; want %q, %v", w.target, c.got, c.ok, w.measured, w.ok)
		}
	}
	for _, name := range []string{
		"SuccessFirstTry/herdsafe-policy: sec/op ≤ 1/5 of the fastest peer's time",
		"SuccessFirstTry/herdsafe-fresh: 0 allocs/op",
		"ParallelSuccess/herdsafe (-cpu 1): 0 allocs/op",
	} {
		if _, found := got[name]; found {
			t.Errorf("target %q set; the row has targets of its own, or none in that scenario", name)
		}
	}
}

// A row with too many allocations misses its allocation target, and a
// scenario whose rows are missing says so rather than passing.
func TestTargetsFailWithoutData(t *testing.T) {
	got := checks(t, `BenchmarkSuccessFirstTry/herdsafe-fresh-2	1000	50 ns/op	160 B/op	2 allocs/op
BenchmarkBulkheadSuccess/herdsafe-2	1000	40 ns/op	0 B/op	1 allocs/op
BenchmarkComposedSuccess/herdsafe-2	1000	900 ns/op	272 B/op	4 allocs/op
`)
	for name, measured := range map[string]string{
		"SuccessFirstTry/herdsafe-fresh: ≤ 1 allocs/op": "2",
		"SuccessFirstTry/herdsafe-fresh: sec/op ≤ 0.8× the fastest per-call peer (cenkalti-v5, cenkalti-v7, sethvargo, avast-v4)": "no data",
		"BulkheadSuccess/herdsafe: 0 allocs/op":             "1",
		"BulkheadSuccess/herdsafe: sec/op ≤ 0.5× failsafe":  "no data",
		"ComposedSuccess/herdsafe: sec/op ≤ 0.25× failsafe": "no data",
	} {
		c, found := got[name]
		if !found || c.ok || c.got != measured {
			t.Errorf("%s: found %v, measured %q, met %v; want %q and not met", name, found, c.got, c.ok, measured)
		}
	}
}
