package main

import (
	"fmt"
	"math"
)

// check is one target, evaluated.
type check struct {
	target string
	got    string
	ok     bool
}

// perCallPeers are the libraries whose rows take their configuration on
// each call, as herdsafe-fresh does; avast-v5 and failsafe reuse a retrier
// built once, so they are not among them.
var perCallPeers = []string{"cenkalti-v5", "cenkalti-v7", "sethvargo", "avast-v4"}

// successTarget is a row of the success path with targets, and the
// targets, evaluated in the benchmark g at p; prefix starts each target's
// name and names the benchmark and the row.
type successTarget struct {
	row    string
	checks func(r *results, g string, p int, prefix string) []check
}

// successTargets are the targets of the success path, held in
// SuccessFirstTry and in ParallelSuccess at every -cpu. A row that is
// missing from a benchmark that ran misses its targets ("no data").
var successTargets = []successTarget{
	// A BackOff made on each call, as cenkalti's users write it: at most
	// one allocation (the BackOff), and at most 0.8 times the fastest peer
	// that also takes its configuration on each call.
	{"herdsafe-fresh", func(r *results, g string, p int, prefix string) []check {
		return []check{
			allocs(r, g, "herdsafe-fresh", p, prefix, 1),
			amongRatio(r, g, "herdsafe-fresh", perCallPeers, p, "sec/op", 0.8, prefix,
				"≤ 0.8× the fastest per-call peer (cenkalti-v5, cenkalti-v7, sethvargo, avast-v4)"),
		}
	}},
	// A Policy built once: no allocation, and at most 0.8 times the peer
	// that also reuses a retrier built once without a context, avast-v5.
	{"herdsafe-policy", func(r *results, g string, p int, prefix string) []check {
		return []check{
			allocs(r, g, "herdsafe-policy", p, prefix, 0),
			rowRatio(r, g, "herdsafe-policy", "avast-v5", p, "sec/op", 0.8, prefix, "≤ 0.8× avast-v5"),
		}
	}},
}

// waitersRows are the rows of Waiters with a target: the driver with
// options per call, and a Policy.
var waitersRows = []string{"herdsafe", "herdsafe-policy"}

// fastestPeer returns the library row (not herdsafe, not bare) with the
// smallest median in unit, and that median.
func fastestPeer(r *results, g string, p int, unit string) (string, float64, bool) {
	var peers []string
	for _, row := range r.rows[g] {
		if !isOurs(row) && !isBaseline(row) {
			peers = append(peers, row)
		}
	}
	return fastestOf(r, g, p, unit, peers)
}

// fastestOf returns the row among rows with the smallest median in unit,
// and that median.
func fastestOf(r *results, g string, p int, unit string, rows []string) (string, float64, bool) {
	best, bestV, found := "", math.Inf(1), false
	for _, row := range rows {
		if v, ok := r.median(key{g, row, p, unit}); ok && v < bestV {
			best, bestV, found = row, v, true
		}
	}
	return best, bestV, found
}

// mainProcs is the GOMAXPROCS of a benchmark's ordinary runs: the largest
// seen.
func mainProcs(r *results, g string) int {
	ps := r.procs[g]
	if len(ps) == 0 {
		return 1
	}
	return ps[len(ps)-1]
}

// targets evaluates the targets of every benchmark present in r, each a
// ratio of medians from the one run r holds.
func targets(r *results) []check {
	var out []check
	have := func(g string) bool { return len(r.rows[g]) > 0 }

	// The success path: the rows of successTargets, in SuccessFirstTry
	// and in ParallelSuccess at every -cpu.
	if g := "SuccessFirstTry"; have(g) {
		p := mainProcs(r, g)
		for _, t := range successTargets {
			out = append(out, t.checks(r, g, p, g+"/"+t.row)...)
		}
	}
	if g := "ParallelSuccess"; have(g) {
		for _, p := range r.procs[g] {
			for _, t := range successTargets {
				out = append(out, t.checks(r, g, p, fmt.Sprintf("%s/%s (-cpu %d)", g, t.row, p))...)
			}
		}
	}
	// Zero delays: no allocation (so no timer), and at most a sixth of
	// the fastest peer's time.
	if g := "ThreeAttemptsZeroDelay"; have(g) {
		p := mainProcs(r, g)
		out = append(out, allocs(r, g, "herdsafe", p, g+"/herdsafe", 0),
			peerRatio(r, g, "herdsafe", p, "sec/op", 1.0/6, "≤ 1/6 of the fastest peer's time"))
	}
	// Waiters: no more memory per waiting goroutine than sethvargo's,
	// whose whole loop is one small frame.
	if g := "Waiters"; have(g) {
		p := mainProcs(r, g)
		for _, row := range waitersRows {
			out = append(out, vsRow(r, g, row, "sethvargo", p, "B/waiter", 1, "≤ sethvargo's"))
		}
	}
	// A composed policy: at most a quarter of failsafe-go's time for the
	// same four policies.
	if g := "ComposedSuccess"; have(g) {
		p := mainProcs(r, g)
		out = append(out, vsRow(r, g, "herdsafe", "failsafe", p, "sec/op", 0.25, "≤ 0.25× failsafe"))
	}
	// The guards alone: no allocation, and at most half the time of the
	// nearest peer.
	if g := "BreakerSuccess"; have(g) {
		p := mainProcs(r, g)
		out = append(out, allocs(r, g, "herdsafe", p, g+"/herdsafe", 0),
			peerRatio(r, g, "herdsafe", p, "sec/op", 0.5, "≤ 0.5× the nearest peer (the faster of gobreaker and failsafe)"))
	}
	for _, g := range []string{"BulkheadSuccess", "ThrottleSuccess", "RateLimiterSuccess", "LimiterSuccess", "RetryBudgetSuccess"} {
		if have(g) {
			p := mainProcs(r, g)
			out = append(out, allocs(r, g, "herdsafe", p, g+"/herdsafe", 0),
				vsRow(r, g, "herdsafe", "failsafe", p, "sec/op", 0.5, "≤ 0.5× failsafe"))
		}
	}
	return out
}

// ours returns the herdsafe rows of g.
func ours(r *results, g string) []string {
	var out []string
	for _, row := range r.rows[g] {
		if isOurs(row) {
			out = append(out, row)
		}
	}
	return out
}

// allocs checks that row makes at most max allocations per op; prefix
// starts the target's name.
func allocs(r *results, g, row string, p int, prefix string, max float64) check {
	what := fmt.Sprintf("≤ %g allocs/op", max)
	if max == 0 {
		what = "0 allocs/op"
	}
	target := prefix + ": " + what
	v, ok := r.median(key{g, row, p, "allocs/op"})
	if !ok {
		return check{target, "no data", false}
	}
	return check{target, fmt.Sprintf("%g", v), v <= max}
}

func peerRatio(r *results, g, row string, p int, unit string, limit float64, what string) check {
	name := fmt.Sprintf("%s/%s: %s %s", g, row, unit, what)
	a, ok := r.median(key{g, row, p, unit})
	peer, b, found := fastestPeer(r, g, p, unit)
	if !ok || !found {
		return check{name, "no data", false}
	}
	return check{name, fmt.Sprintf("%s of %s", ratio(a, b), peer), a <= limit*b}
}

// amongRatio checks row against the fastest of peers; prefix starts the
// target's name.
func amongRatio(r *results, g, row string, peers []string, p int, unit string, limit float64, prefix, what string) check {
	target := prefix + ": " + unit + " " + what
	a, ok := r.median(key{g, row, p, unit})
	peer, b, found := fastestOf(r, g, p, unit, peers)
	if !ok || !found {
		return check{target, "no data", false}
	}
	return check{target, fmt.Sprintf("%s of %s", ratio(a, b), peer), a <= limit*b}
}

// rowRatio checks row against the row other; prefix starts the target's
// name.
func rowRatio(r *results, g, row, other string, p int, unit string, limit float64, prefix, what string) check {
	target := prefix + ": " + unit + " " + what
	a, ok1 := r.median(key{g, row, p, unit})
	b, ok2 := r.median(key{g, other, p, unit})
	if !ok1 || !ok2 {
		return check{target, "no data", false}
	}
	return check{target, fmt.Sprintf("%s of %s", ratio(a, b), other), a <= limit*b}
}

// vsRow checks row against the row bare (a baseline, or one named
// peer), under the target name "g/row: unit what".
func vsRow(r *results, g, row, bare string, p int, unit string, limit float64, what string) check {
	return rowRatio(r, g, row, bare, p, unit, limit, g+"/"+row, what)
}
