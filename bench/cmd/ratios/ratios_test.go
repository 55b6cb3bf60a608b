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
