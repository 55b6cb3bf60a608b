package main

import (
	"fmt"
	"io"
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
