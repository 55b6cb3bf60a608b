package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// scenario is one row of the summary: a herdsafe row of a benchmark, at a
// GOMAXPROCS, in the unit that benchmark is judged by.
type scenario struct {
	group, row string
	procs      int
	unit       string
	label      string
}

// summaryScenarios lists the rows of the summary, for the benchmarks
// present in r: every herdsafe row of SuccessFirstTry; the herdsafe row of
// the others, with the parallel ones at each GOMAXPROCS run, ParallelSuccess
// also with the rows built once (herdsafe-policy, herdsafe-retrier) and
// herdsafe-fresh, and Waiters with every herdsafe row, in bytes per waiter
// and in cancel latency; all in time per operation but Waiters.
func summaryScenarios(r *results) []scenario {
	var out []scenario
	add := func(g, row string, p int, unit, label string) {
		if _, ok := r.median(key{g, row, p, unit}); ok {
			out = append(out, scenario{g, row, p, unit, label})
		}
	}
	one := func(g string) { add(g, "herdsafe", mainProcs(r, g), "sec/op", g) }
	perProcs := func(g string, rows ...string) {
		for _, p := range r.procs[g] {
			for _, row := range rows {
				add(g, row, p, "sec/op", fmt.Sprintf("%s, -cpu %d", g, p))
			}
		}
	}
	for _, row := range ours(r, "SuccessFirstTry") {
		add("SuccessFirstTry", row, mainProcs(r, "SuccessFirstTry"), "sec/op", "SuccessFirstTry")
	}
	perProcs("ParallelSuccess", "herdsafe", "herdsafe-policy", "herdsafe-retrier", "herdsafe-fresh")
	one("ThreeAttemptsZeroDelay")
	one("NextDelay")
	perProcs("ParallelNextDelay", "herdsafe")
	for _, row := range ours(r, "Waiters") {
		for _, unit := range []string{"B/waiter", "cancel-ns"} {
			add("Waiters", row, mainProcs(r, "Waiters"), unit, "Waiters")
		}
	}
	one("Transport")
	one("ComposedSuccess")
	one("BreakerSuccess")
	one("BulkheadSuccess")
	one("ThrottleSuccess")
	one("RateLimiterSuccess")
	one("LimiterSuccess")
	one("RetryBudgetSuccess")
	return out
}

// peerOrder is the order of the summary's columns: the libraries, then the
// bare baselines. Rows not listed follow, libraries before baselines, in the
// order they first appear.
var peerOrder = []string{
	"cenkalti-v5", "cenkalti-v7", "sethvargo", "avast-v4", "avast-v5", "failsafe", "gobreaker", "retryablehttp",
	"bare-direct", "bare-loop", "bare",
}

// peerColumns returns every row other than herdsafe's in the benchmarks
// groups, in peerOrder.
func peerColumns(r *results, groups []string) []string {
	var seen []string
	for _, g := range groups {
		for _, row := range r.rows[g] {
			if !isOurs(row) && !slices.Contains(seen, row) {
				seen = append(seen, row)
			}
		}
	}
	rank := func(row string) int {
		if i := slices.Index(peerOrder, row); i >= 0 {
			return i
		}
		if isBaseline(row) {
			return 2 * len(peerOrder)
		}
		return len(peerOrder)
	}
	slices.SortStableFunc(seen, func(a, b string) int { return rank(a) - rank(b) })
	return seen
}

// writeSummary prints one table: a row per scenario, a column per peer and
// baseline, each cell herdsafe ÷ that row in the scenario's unit, "–" where
// the peer has no row in that benchmark.
func writeSummary(w io.Writer, r *results) {
	ss := summaryScenarios(r)
	if len(ss) == 0 {
		return
	}
	var groups []string
	for _, s := range ss {
		groups = append(groups, s.group)
	}
	cols := peerColumns(r, groups)
	fmt.Fprintln(w, "## Summary: herdsafe ÷ each peer (median of the runs; below 1 is better)")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| scenario | herdsafe row | unit | %s |\n", strings.Join(cols, " | "))
	fmt.Fprintf(w, "|---|---|---|%s\n", strings.Repeat("---|", len(cols)))
	for _, s := range ss {
		a, _ := r.median(key{s.group, s.row, s.procs, s.unit})
		cells := make([]string, len(cols))
		for i, c := range cols {
			b, ok := r.median(key{s.group, c, s.procs, s.unit})
			if !ok {
				cells[i] = "–"
				continue
			}
			cells[i] = ratio(a, b)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", s.label, s.row, s.unit, strings.Join(cells, " | "))
	}
	fmt.Fprintln(w)
}

// writeScaling prints, for each benchmark run at more than one GOMAXPROCS,
// every row's time per operation at the largest GOMAXPROCS ÷ at 1: each
// row against itself. A library with no lock shared between goroutines
// keeps it at or below 1.
func writeScaling(w io.Writer, r *results) {
	var groups []string
	for _, g := range r.groups {
		if ps := r.procs[g]; len(ps) > 1 && ps[0] == 1 {
			groups = append(groups, g)
		}
	}
	if len(groups) == 0 {
		return
	}
	var cols []string
	for _, g := range groups {
		for _, row := range r.rows[g] {
			if isOurs(row) && !slices.Contains(cols, row) {
				cols = append(cols, row)
			}
		}
	}
	cols = append(cols, peerColumns(r, groups)...)
	fmt.Fprintln(w, "\n## Scaling: time/op at the largest -cpu ÷ at -cpu 1, each row against itself (at most 1: no shared lock)")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| benchmark | -cpu | %s |\n", strings.Join(cols, " | "))
	fmt.Fprintf(w, "|---|---|%s\n", strings.Repeat("---|", len(cols)))
	for _, g := range groups {
		hi := mainProcs(r, g)
		cells := make([]string, len(cols))
		for i, c := range cols {
			one, ok1 := r.median(key{g, c, 1, "sec/op"})
			many, ok2 := r.median(key{g, c, hi, "sec/op"})
			if !ok1 || !ok2 {
				cells[i] = "–"
				continue
			}
			cells[i] = ratio(many, one)
		}
		fmt.Fprintf(w, "| %s | %d ÷ 1 | %s |\n", g, hi, strings.Join(cells, " | "))
	}
}

// writeReport prints the whole report: the summary first, then the
// detailed ratio tables, the scaling table and the targets.
func writeReport(w io.Writer, r *results) {
	writeSummary(w, r)
	writeRatios(w, r)
	writeScaling(w, r)
	writeTargets(w, r)
}
