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

// columns names the fields of a row, in order: they are the CSV header and
// the JSON keys, and the table's header less runs (the same on every row;
// the table says so below it when it is not 1). The row type's JSON tags
// spell the same names.
var columns = []string{"scenario", "strategy", "clients", "runs", "calls", "last_success_s", "peak_per_10ms", "failed", "unfinished"}

// runsColumn is the index of runs in columns, the one the table leaves out.
const runsColumn = 3

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

// cells formats a row, one cell per column. In the table, last_success_s
// has two decimals and reads ">T" when some clients were unfinished at the
// cut-off T, and "-" when no client succeeded; the CSV file keeps the
// number, with three decimals.
func cells(r row, table bool) []string {
	completion := strconv.FormatFloat(r.Seconds, 'f', 3, 64)
	if table {
		completion = strconv.FormatFloat(r.Seconds, 'f', 2, 64)
		switch {
		case r.Unfinished > 0:
			completion = ">" + completion
		case r.Failed >= float64(r.Clients):
			completion = "-"
		}
	}
	return []string{
		r.Scenario, r.Strategy, strconv.Itoa(r.Clients), strconv.Itoa(r.Runs),
		number(r.Calls), completion, number(r.PeakLoad), number(r.Failed), number(r.Unfinished),
	}
}

// tableCells is cells for the table: without runs.
func tableCells(c []string) []string {
	return slices.Delete(slices.Clone(c), runsColumn, runsColumn+1)
}

// number prints a mean: whole numbers as such, the others with one decimal.
func number(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// writeTable writes an aligned table: text columns to the left, numbers to
// the right, a blank line between scenarios and fleet sizes, and below it
// a note for each mark the table uses.
func writeTable(w io.Writer, rows []row) error {
	lines := [][]string{tableCells(columns)}
	for _, r := range rows {
		lines = append(lines, tableCells(cells(r, true)))
	}
	width := make([]int, len(lines[0]))
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
	b.WriteString(footer(rows))
	_, err := io.WriteString(w, b.String())
	return err
}

// footer explains what the table's rows need explained: the runs behind
// each row, the clients unfinished at a cut-off and the ">T" they put in
// last_success_s, and the "-" of a row where no client succeeded.
func footer(rows []row) string {
	var b strings.Builder
	if len(rows) > 0 && rows[0].Runs > 1 {
		fmt.Fprintf(&b, "\nEach row is the mean of %d runs (-runs), each with its own seed.\n", rows[0].Runs)
	}
	if slices.ContainsFunc(rows, func(r row) bool { return r.Unfinished > 0 }) {
		b.WriteString("\nunfinished: clients still retrying when the run was cut off at T (-horizon,\n" +
			"or -live-limit with -live). They count in failed too, and last_success_s\n" +
			"reads >T: a lower bound of the time until every client succeeds.\n")
	}
	if slices.ContainsFunc(rows, func(r row) bool { return r.Unfinished == 0 && r.Failed >= float64(r.Clients) }) {
		b.WriteString("\n-: no client succeeded; every one gave up (-max-calls).\n")
	}
	return b.String()
}

func writeCSV(w io.Writer, rows []row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(columns); err != nil {
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
