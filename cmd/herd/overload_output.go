package main

import (
	"slices"
	"strconv"
	"strings"
)

// rowKind is which columns a row has: those of occ, restart and live
// (fleet), of outage, or of overload.
type rowKind uint8

const (
	fleetKind rowKind = iota
	outageKind
	overloadKind
)

// kind returns the kind of r.
func (r row) kind() rowKind {
	switch {
	case r.isOverload():
		return overloadKind
	case r.isOutage():
		return outageKind
	}
	return fleetKind
}

// columns returns the names of the columns of a row of kind k, in the
// table or everywhere else.
func (k rowKind) columns(table bool) []string {
	if k == overloadKind {
		return overloadColumnsOf(table)
	}
	if !table {
		return columnsOf(k == outageKind, -1)
	}
	return columnsOf(k == outageKind, 1)
}

// overloadColumns are the columns of the overload scenario's rows, after
// the columns every row has (scenario, strategy, clients, runs) and the
// calls sent (calls, peak_per_10ms). The table leaves settled out: it
// marks the settle times instead.
var overloadColumns = []column{
	{name: "goodput", table: 1},
	{name: "p50_x", table: 1},
	{name: "p99_x", table: 1},
	{name: "p99_p99", table: 1},
	{name: "timed_out", table: 1},
	{name: "server_refused", table: 1},
	{name: "refused", table: 1},
	{name: overloadSteps[0].column, table: 1},
	{name: overloadSteps[1].column, table: 1},
	{name: overloadSteps[2].column, table: 1},
	{name: "settled", table: -1},
}

// overloadShared are the columns of the other scenarios a row of
// overload has too, in the order of columns.
var overloadShared = []string{"scenario", "strategy", "clients", "runs", "calls", "peak_per_10ms"}

// overloadColumnsOf returns the names of the columns of a row of
// overload, in the table or everywhere else.
func overloadColumnsOf(table bool) []string {
	var out []string
	for _, n := range overloadShared {
		if !table || n != "runs" {
			out = append(out, n)
		}
	}
	for _, c := range overloadColumns {
		if c.table > 0 || !table {
			out = append(out, c.name)
		}
	}
	return out
}

// appendOverloadColumns adds to a CSV header the columns of overload it
// lacks.
func appendOverloadColumns(header []string) []string {
	for _, n := range overloadColumnsOf(false) {
		if !slices.Contains(header, n) {
			header = append(header, n)
		}
	}
	return header
}

// overloadCell formats the field name of an overload row, "" if it does
// not apply. Goodput and the shares have three decimals, the latency
// ratios two in the table and three elsewhere; the settle times are seconds, with two decimals in the
// table, where they read "-" for a fleet whose limit does not move and
// ">T" for a limit that had not settled by the end of its stage, T after
// the step; in CSV a fleet whose limit does not move leaves them empty.
func (r row) overloadCell(name string, table bool) string {
	decimals := 3
	if table {
		decimals = 2
	}
	switch name {
	case "goodput":
		return ratio(r.Goodput)
	case "p50_x":
		return strconv.FormatFloat(r.P50X, 'f', decimals, 64)
	case "p99_x":
		return strconv.FormatFloat(r.P99X, 'f', decimals, 64)
	case "p99_p99":
		return strconv.FormatFloat(r.P99P99, 'f', decimals, 64)
	case "timed_out":
		return ratio(r.TimedOut)
	case "server_refused":
		return ratio(r.ServerRefused)
	case "refused":
		return ratio(r.Refused)
	case "settled":
		return strconv.FormatBool(r.Settled)
	}
	i := slices.IndexFunc(overloadSteps, func(s struct{ stage, column string }) bool { return s.column == name })
	if i < 0 || i >= len(r.Settle) {
		return ""
	}
	switch {
	case !r.Adaptive && table:
		return "-"
	case !r.Adaptive:
		return ""
	case table && !r.settled[i]:
		return ">" + strconv.FormatFloat(r.Settle[i], 'f', 2, 64)
	case table:
		return strconv.FormatFloat(r.Settle[i], 'f', 2, 64)
	}
	return strconv.FormatFloat(r.Settle[i], 'f', 3, 64)
}

// overloadValue returns the field name of an overload row, for JSON, and
// whether it is one of overload's own: a settle time is null for a fleet
// whose limit does not move.
func (r row) overloadValue(name string) (any, bool) {
	if !r.isOverload() {
		return nil, false
	}
	switch name {
	case "goodput":
		return r.Goodput, true
	case "p50_x":
		return r.P50X, true
	case "p99_x":
		return r.P99X, true
	case "p99_p99":
		return r.P99P99, true
	case "server_refused":
		return r.ServerRefused, true
	case "timed_out":
		return r.TimedOut, true
	case "refused":
		return r.Refused, true
	case "settled":
		return r.Settled, true
	}
	for i, s := range overloadSteps {
		if s.column == name {
			if !r.Adaptive || i >= len(r.Settle) {
				return nil, true
			}
			return r.Settle[i], true
		}
	}
	return nil, false
}

// overloadFooter explains the marks of the overload table.
func overloadFooter(rows []row) string {
	var b strings.Builder
	if slices.ContainsFunc(rows, func(r row) bool { return r.isOverload() && !r.Adaptive }) {
		b.WriteString("\n-: the fleet's limit does not move (no guard, or a fixed bulkhead): nothing to settle.\n")
	}
	if slices.ContainsFunc(rows, func(r row) bool { return r.isOverload() && r.Adaptive && !r.Settled }) {
		b.WriteString("\n>T: the fleet's limit had not settled (within 10% of where it ended up) by the end\n" +
			"of its stage, T after the step.\n")
	}
	return b.String()
}
