package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// writeRows writes the rows in the format the options name.
func writeRows(w io.Writer, format string, rows []row) error {
	switch format {
	case "csv":
		return writeCSV(w, rows)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if rows == nil {
			rows = []row{}
		}
		return enc.Encode(rows)
	default:
		return writeTable(w, rows)
	}
}

var header = []string{"scenario", "strategy", "clients", "calls", "last success", "peak/10ms", "failed"}

// cells formats a row for the table and the CSV file. In the table, the
// time of the last success reads ">T" when some clients were still failing
// at the cut-off T, and "-" when no client succeeded; the CSV file keeps
// the number, and the unfinished count in a column of its own.
func cells(r row, table bool) []string {
	completion := strconv.FormatFloat(r.Seconds, 'f', 3, 64)
	if table {
		completion = strconv.FormatFloat(r.Seconds, 'f', 2, 64) + "s"
		switch {
		case r.Unfinished > 0:
			completion = ">" + completion
		case r.Failed >= float64(r.Clients):
			completion = "-"
		}
	}
	c := []string{
		r.Scenario, r.Strategy, strconv.Itoa(r.Clients),
		number(r.Calls), completion, number(r.PeakLoad), number(r.Failed),
	}
	if !table {
		c = append(c, number(r.Unfinished))
	}
	return c
}

// number prints a mean: whole numbers as such, the others with one decimal.
func number(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// writeTable writes an aligned table: text columns to the left, numbers to
// the right, a blank line between scenarios and fleet sizes.
func writeTable(w io.Writer, rows []row) error {
	lines := [][]string{header}
	for _, r := range rows {
		lines = append(lines, cells(r, true))
	}
	width := make([]int, len(header))
	for _, l := range lines {
		for i, c := range l {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	for n, l := range lines {
		if n > 1 && (rows[n-1].Scenario != rows[n-2].Scenario || rows[n-1].Clients != rows[n-2].Clients) {
			b.WriteString("\n")
		}
		for i, c := range l {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			switch {
			case i < 2:
				b.WriteString(c + pad)
			default:
				b.WriteString(pad + c)
			}
			if i < len(l)-1 {
				b.WriteString("  ")
			}
		}
		b.WriteString("\n")
	}
	if slices.ContainsFunc(rows, func(r row) bool { return r.Unfinished > 0 }) {
		b.WriteString("\n>T: some clients were still failing when the run was cut off at T (-horizon, or\n" +
			"-live-limit); they count as failed, and T is a lower bound of the time until all succeed.\n")
	}
	if slices.ContainsFunc(rows, func(r row) bool { return r.Unfinished == 0 && r.Failed >= float64(r.Clients) }) {
		b.WriteString("\n-: no client succeeded; every one gave up (-max-calls).\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeCSV(w io.Writer, rows []row) error {
	cw := csv.NewWriter(w)
	h := append([]string(nil), header...)
	h[4], h[5] = "last_success_s", "peak_per_10ms"
	h = append(h, "unfinished")
	if err := cw.Write(h); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write(cells(r, false)); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	return nil
}
