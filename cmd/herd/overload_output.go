package main

import (
	"slices"
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

// settleStep returns the step of overloadSteps whose settle time the
// column name is, or -1.
func settleStep(name string) int {
	return slices.IndexFunc(overloadSteps, func(s struct{ stage, column string }) bool { return s.column == name })
}

// unsettled reports whether the column name of r is the settle time of a
// step after which the fleet's limit had not settled by the end of its
// stage.
func (r row) unsettled(name string) bool {
	i := settleStep(name)
	return i >= 0 && i < len(r.settled) && !r.settled[i]
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
