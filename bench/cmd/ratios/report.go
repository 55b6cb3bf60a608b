package main

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// ratio formats a/b: "0.21×"; "=" when both are zero, "0×" when only a is,
// "∞" when only b is.
func ratio(a, b float64) string {
	switch {
	case a == 0 && b == 0:
		return "="
	case a == 0:
		return "0×"
	case b == 0:
		return "∞"
	}
	r := a / b
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f×", r)
	case r >= 10:
		return fmt.Sprintf("%.1f×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}

// writeRatios prints, for each benchmark, GOMAXPROCS and unit, a table of
// herdsafe rows against every other row.
func writeRatios(w io.Writer, r *results) {
	fmt.Fprintln(w, "## Ratios: herdsafe ÷ each row (median of the runs; below 1 is better)")
	for _, g := range r.groups {
		var ours, others []string
		for _, row := range r.rows[g] {
			if isOurs(row) {
				ours = append(ours, row)
			} else {
				others = append(others, row)
			}
		}
		if len(ours) == 0 || len(others) == 0 {
			continue
		}
		for _, p := range r.procs[g] {
			fmt.Fprintf(w, "\n### %s (GOMAXPROCS %d)\n\n", g, p)
			fmt.Fprintf(w, "| herdsafe row | unit | %s |\n", strings.Join(others, " | "))
			fmt.Fprintf(w, "|---|---|%s\n", strings.Repeat("---|", len(others)))
			for _, unit := range r.units[g] {
				for _, o := range ours {
					a, ok := r.median(key{g, o, p, unit})
					if !ok {
						continue
					}
					cells := make([]string, len(others))
					for i, other := range others {
						b, ok := r.median(key{g, other, p, unit})
						if !ok {
							cells[i] = "–"
							continue
						}
						cells[i] = ratio(a, b)
					}
					fmt.Fprintf(w, "| %s | %s | %s |\n", o, unit, strings.Join(cells, " | "))
				}
			}
		}
	}
}

// check is one target, evaluated.
type check struct {
	target string
	got    string
	ok     bool
}

// fastestPeer returns the library row (not herdsafe, not bare) with the
// smallest median in unit, and that median.
func fastestPeer(r *results, g string, p int, unit string) (string, float64, bool) {
	best, bestV, found := "", math.Inf(1), false
	for _, row := range r.rows[g] {
		if isOurs(row) || isBaseline(row) {
			continue
		}
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

// targets evaluates the targets of every benchmark present in r.
func targets(r *results) []check {
	var out []check
	have := func(g string) bool { return len(r.rows[g]) > 0 }

	// Success path: 0 B/op and 0 allocs/op; at most a fifth of the fastest
	// peer's time.
	if g := "SuccessFirstTry"; have(g) {
		p := mainProcs(r, g)
		for _, row := range r.rows[g] {
			if !isOurs(row) {
				continue
			}
			for _, unit := range []string{"B/op", "allocs/op"} {
				if v, ok := r.median(key{g, row, p, unit}); ok {
					out = append(out, check{fmt.Sprintf("%s/%s: 0 %s", g, row, unit), fmt.Sprintf("%g", v), v == 0})
				}
			}
			out = append(out, peerRatio(r, g, row, p, "sec/op", 1.0/5, "≤ 1/5 of the fastest peer's time"))
		}
	}
	// Zero delays: at most one allocation; at most a sixth of the fastest
	// peer's time.
	if g := "ThreeAttemptsZeroDelay"; have(g) {
		p := mainProcs(r, g)
		for _, row := range r.rows[g] {
			if !isOurs(row) {
				continue
			}
			if v, ok := r.median(key{g, row, p, "allocs/op"}); ok {
				out = append(out, check{fmt.Sprintf("%s/%s: ≤ 1 allocs/op (so no timer)", g, row), fmt.Sprintf("%g", v), v <= 1})
			}
			out = append(out, peerRatio(r, g, row, p, "sec/op", 1.0/6, "≤ 1/6 of the fastest peer's time"))
		}
	}
	// NextDelay: within 10% of the fastest peer.
	if g := "NextDelay"; have(g) {
		p := mainProcs(r, g)
		for _, row := range r.rows[g] {
			if isOurs(row) {
				out = append(out, peerRatio(r, g, row, p, "sec/op", 1.10, "within 10% of the fastest peer"))
			}
		}
	}
	// No global lock: per-op time at the most procs no worse than at 1, on
	// the success path and in the random source of the delays.
	for _, g := range []string{"ParallelSuccess", "ParallelNextDelay"} {
		if !have(g) || len(r.procs[g]) < 2 {
			continue
		}
		hi := mainProcs(r, g)
		for _, row := range r.rows[g] {
			if !isOurs(row) {
				continue
			}
			one, ok1 := r.median(key{g, row, 1, "sec/op"})
			many, ok2 := r.median(key{g, row, hi, "sec/op"})
			if ok1 && ok2 {
				out = append(out, check{
					fmt.Sprintf("%s/%s: time/op at -cpu %d ≤ at -cpu 1", g, row, hi),
					fmt.Sprintf("%s of -cpu 1", ratio(many, one)), many <= one})
			}
		}
	}
	// Waiters: memory within 5% of bare, cancel latency within 20%, no
	// leak.
	if g := "Waiters"; have(g) {
		p := mainProcs(r, g)
		out = append(out,
			bareRatio(r, g, "herdsafe", "bare", p, "B/waiter", 1.05, "within 5% of bare"),
			bareRatio(r, g, "herdsafe", "bare", p, "cancel-ns", 1.20, "within 20% of bare"))
		if v, ok := r.median(key{g, "herdsafe", p, "leaked-goroutines"}); ok {
			out = append(out, check{g + "/herdsafe: 0 leaked goroutines", fmt.Sprintf("%g", v), v == 0})
		}
	}
	// Transport: within 5% of the bare base transport.
	if g := "Transport"; have(g) {
		p := mainProcs(r, g)
		out = append(out, bareRatio(r, g, "herdsafe", "bare", p, "sec/op", 1.05, "within 5% of the bare transport"))
	}
	return out
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

func bareRatio(r *results, g, row, bare string, p int, unit string, limit float64, what string) check {
	name := fmt.Sprintf("%s/%s: %s %s", g, row, unit, what)
	a, ok1 := r.median(key{g, row, p, unit})
	b, ok2 := r.median(key{g, bare, p, unit})
	if !ok1 || !ok2 {
		return check{name, "no data", false}
	}
	return check{name, fmt.Sprintf("%s of %s", ratio(a, b), bare), a <= limit*b}
}

// writeTargets prints the targets as a table with a verdict each.
func writeTargets(w io.Writer, r *results) {
	cs := targets(r)
	if len(cs) == 0 {
		return
	}
	fmt.Fprintln(w, "\n## Targets")
	fmt.Fprintln(w, "\n| target | measured | met |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, c := range cs {
		verdict := "yes"
		if !c.ok {
			verdict = "**no**"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", c.target, c.got, verdict)
	}
}
