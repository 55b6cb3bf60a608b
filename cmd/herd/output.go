package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/herdsafe/backoff/herd"
)

// column is a field of the rows: its name, the same in the table, the CSV
// header and the JSON keys, and the rows it applies to. The table leaves
// out the columns it says below it instead (runs, recovered,
// success_recovered), and writes the rows of outage as two tables, their
// load (table 1) and their user calls (table 2), each with the key
// columns (0).
type column struct {
	name         string
	fleet, users bool // applies to the rows of occ, restart and live; of outage
	table        int  // -1: not in the table; 0: in each; 1, 2: in outage's first or second
}

// columns are every field, in order. A row of occ, restart or live has
// the fleet columns, a row of outage the users columns.
var columns = []column{
	{"scenario", true, true, 0},
	{"strategy", true, true, 0},
	{"clients", true, true, 0},
	{"runs", true, true, -1},
	{"calls", true, true, 1},
	{"last_success_s", true, false, 1},
	{"peak_per_10ms", true, true, 1},
	{"failed", true, false, 1},
	{"unfinished", true, false, 1},
	{"outage_x", false, true, 1},
	{"outage_peak_x", false, true, 1},
	{"degraded_x", false, true, 1},
	{"total_x", false, true, 1},
	{"recovery_s", false, true, 1},
	{"recovered", false, true, -1},
	{"user_calls", false, true, 2},
	{"user_failed", false, true, 2},
	{"warmup_failed_pct", false, true, 2},
	{"down_failed_pct", false, true, 2},
	{"degraded_failed_pct", false, true, 2},
	{"healthy_failed_pct", false, true, 2},
	{"success_s", false, true, 2},
	{"success_recovered", false, true, -1},
}

// phaseOfColumn is the phase of each column of failed shares.
var phaseOfColumn = map[string]herd.Phase{
	"warmup_failed_pct": herd.PhaseWarmup, "down_failed_pct": herd.PhaseDown,
	"degraded_failed_pct": herd.PhaseDegraded, "healthy_failed_pct": herd.PhaseHealthy,
}

// isOutage reports whether r is a row of the outage scenario.
func (r row) isOutage() bool { return r.Scenario == string(herd.Outage) }

// names returns the names of the columns that keep says to, in order.
func names(keep func(column) bool) []string {
	var out []string
	for _, c := range columns {
		if keep(c) {
			out = append(out, c.name)
		}
	}
	return out
}

// columnsOf returns the names of the columns of a row of outage (users)
// or of another scenario: everywhere but in the table for table -1, and
// those of table 1 or 2 (with the key columns) otherwise. The rows of the
// other scenarios have table 1 alone.
func columnsOf(users bool, table int) []string {
	return names(func(c column) bool {
		return (users && c.users || !users && c.fleet) && (table < 0 || c.table == 0 || c.table == table)
	})
}

// writeRows writes the rows in the format the options name.
func writeRows(w io.Writer, format string, rows []row) error {
	switch format {
	case "csv":
		return writeCSV(w, rows)
	case "json":
		return writeJSON(w, rows)
	default:
		return writeTable(w, rows)
	}
}

// countColumns are the columns of counts (means of calls or clients),
// which number prints, and shareColumns those of amplifications and
// shares of the calls, which ratio prints. The failed shares of a phase
// (phaseOfColumn), in percent, have one decimal in the table and three
// elsewhere; the other figures, seconds and latency ratios, two in the
// table and three elsewhere.
var (
	countColumns = []string{"calls", "peak_per_10ms", "failed", "unfinished", "user_calls", "user_failed"}
	shareColumns = []string{"outage_x", "outage_peak_x", "degraded_x", "total_x", "goodput", "timed_out", "server_refused", "refused"}
)

// cell formats the field name of r (see value), "" if it does not apply
// to r: text as it is, counts, shares and decimals as countColumns says.
// The table marks its seconds: last_success_s reads ">T" when some
// clients were unfinished at the cut-off T and "-" when no client
// succeeded; recovery_s and success_s read ">T" when the fleet was not
// back to normal (Recovered, SuccessRecovered) by the end, T after the
// healthy phase began; an overload settle time reads ">T" when the
// fleet's limit had not settled by the end of its stage, T after the
// step, and "-" when the fleet's limit does not move, which the CSV file
// leaves empty. The CSV file keeps the numbers, and the columns recovered,
// success_recovered and settled say what the marks say.
func cell(r row, name string, table bool) string {
	if !slices.Contains(r.kind().columns(false), name) {
		return ""
	}
	switch v := r.value(name).(type) {
	case string:
		return v
	case int:
		return strconv.Itoa(v)
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return r.formatNumber(name, v, table)
	}
	if table && !r.Adaptive { // a settle time: the fleet's limit does not move
		return "-"
	}
	return ""
}

// formatNumber formats v, the number of r's column name, as cell says.
func (r row) formatNumber(name string, v float64, table bool) string {
	if slices.Contains(countColumns, name) {
		return number(v)
	}
	if slices.Contains(shareColumns, name) {
		return ratio(v)
	}
	if _, ok := phaseOfColumn[name]; ok {
		if table {
			return strconv.FormatFloat(v, 'f', 1, 64)
		}
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	if !table {
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	switch {
	case name == "last_success_s" && r.Unfinished > 0,
		name == "recovery_s" && !r.Recovered,
		name == "success_s" && !r.SuccessRecovered,
		r.unsettled(name):
		return ">" + s
	case name == "last_success_s" && r.Failed >= float64(r.Clients):
		return "-"
	}
	return s
}

// cells formats the fields names of r.
func cells(r row, names []string, table bool) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = cell(r, n, table)
	}
	return out
}

// writeJSON writes the rows as an indented JSON array, [] when there
// are none.
func writeJSON[R any](w io.Writer, rows []R) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if rows == nil {
		rows = []R{}
	}
	return enc.Encode(rows)
}

// MarshalJSON writes r as an object of the fields that apply to it, in
// the order of columns.
func (r row) MarshalJSON() ([]byte, error) { return marshalObject(r.kind().columns(false), r.value) }

// marshalObject writes a JSON object of the keys names, in their order,
// each with the value value gives it.
func marshalObject(names []string, value func(name string) any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, name := range names {
		v, err := json.Marshal(value(name))
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", name, v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// value returns the field name of r, for JSON and for cell: a string, an
// int, a float64, a bool, or nil for a settle time of overload where the
// fleet's limit does not move.
func (r row) value(name string) any {
	switch name {
	case "scenario":
		return r.Scenario
	case "strategy":
		return r.Strategy
	case "clients":
		return r.Clients
	case "runs":
		return r.Runs
	case "calls":
		return r.Calls
	case "last_success_s":
		return r.Seconds
	case "peak_per_10ms":
		return r.PeakLoad
	case "failed":
		return r.Failed
	case "unfinished":
		return r.Unfinished
	case "user_calls":
		return r.UserCalls
	case "user_failed":
		return r.UserFailed
	case "outage_x":
		return r.DownX
	case "outage_peak_x":
		return r.DownPeakX
	case "degraded_x":
		return r.DegradedX
	case "total_x":
		return r.TotalX
	case "recovery_s":
		return r.RecoveryS
	case "recovered":
		return r.Recovered
	case "success_s":
		return r.SuccessS
	case "success_recovered":
		return r.SuccessRecovered
	case "goodput":
		return r.Goodput
	case "p50_x":
		return r.P50X
	case "p99_x":
		return r.P99X
	case "p99_p99":
		return r.P99P99
	case "server_refused":
		return r.ServerRefused
	case "timed_out":
		return r.TimedOut
	case "refused":
		return r.Refused
	case "settled":
		return r.Settled
	}
	if p, ok := phaseOfColumn[name]; ok {
		return r.FailedPct[p]
	}
	if i := settleStep(name); i >= 0 {
		if !r.Adaptive || i >= len(r.Settle) {
			return nil
		}
		return r.Settle[i]
	}
	return nil
}

// ratio prints an amplification with three decimals, so that the probe
// rate of a breaker, a few thousandths of the base load, shows.
func ratio(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// number prints a mean: whole numbers as such, the others with one decimal.
func number(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// writeTable writes the rows as aligned tables, one for the rows of outage
// and one for the others, each with its own columns, in the order their
// first rows come: text columns to the left, numbers to the right, a
// blank line between scenarios and fleet sizes, and below them a note for
// each mark the tables use.
func writeTable(w io.Writer, rows []row) error {
	var b strings.Builder
	var blocks []rowKind // in order of appearance
	for _, r := range rows {
		if !slices.Contains(blocks, r.kind()) {
			blocks = append(blocks, r.kind())
		}
	}
	if len(blocks) == 0 {
		blocks = []rowKind{fleetKind}
	}
	for i, k := range blocks {
		if i > 0 {
			b.WriteString("\n")
		}
		of := filter(rows, func(r row) bool { return r.kind() == k })
		if k == outageKind {
			writeBlock(&b, columnsOf(true, 1), of)
			b.WriteString("\n")
			writeBlock(&b, columnsOf(true, 2), of)
			continue
		}
		writeBlock(&b, k.columns(true), of)
	}
	b.WriteString(footer(rows))
	b.WriteString(overloadFooter(rows))
	_, err := io.WriteString(w, b.String())
	return err
}

// writeBlock writes one aligned table of rows with the columns names.
func writeBlock(b *strings.Builder, names []string, rows []row) {
	lines := [][]string{names}
	for _, r := range rows {
		lines = append(lines, cells(r, names, true))
	}
	width := make([]int, len(names))
	for _, l := range lines {
		for i, c := range l {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
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
}

// footer explains what the table's rows need explained: the runs behind
// each row, the clients unfinished at a cut-off and the ">T" they put in
// last_success_s, the "-" of a row where no client succeeded, and the
// ">T" of a fleet not back to normal in recovery_s.
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
	if slices.ContainsFunc(rows, func(r row) bool { return !r.isOutage() && r.Unfinished == 0 && r.Failed >= float64(r.Clients) }) {
		b.WriteString("\n-: no client succeeded; every one gave up (-max-calls).\n")
	}
	if slices.ContainsFunc(rows, func(r row) bool { return r.isOutage() && !r.Recovered }) {
		b.WriteString("\nrecovery_s >T: the fleet was not back to normal (the load of every second within\n" +
			"1.1× its base load) by the end of the healthy phase, T after it began (-healthy).\n")
	}
	if slices.ContainsFunc(rows, func(r row) bool { return r.isOutage() && !r.SuccessRecovered }) {
		b.WriteString("\nsuccess_s >T: the user calls of every second did not succeed at 99% by the end\n" +
			"of the healthy phase, T after it began (-healthy).\n")
	}
	return b.String()
}

// writeCSV writes the rows under one header: the columns of the kinds of
// rows there are, a cell left empty where a column does not apply.
func writeCSV(w io.Writer, rows []row) error {
	fleet := len(rows) == 0 || slices.ContainsFunc(rows, func(r row) bool { return r.kind() == fleetKind })
	users := slices.ContainsFunc(rows, row.isOutage)
	header := names(func(c column) bool { return fleet && c.fleet || users && c.users })
	if slices.ContainsFunc(rows, row.isOverload) {
		header = appendOverloadColumns(header)
	}
	return writeRecords(w, header, rows, func(r row) []string { return cells(r, header, false) })
}

// writeRecords writes a CSV file of the header and, under it, the record
// of each row.
func writeRecords[R any](w io.Writer, header []string, rows []R, record func(R) []string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write(record(r)); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	return nil
}
