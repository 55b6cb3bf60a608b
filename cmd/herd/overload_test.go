package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/herdsafe/backoff/herd"
)

// quickServer is a server of 20 workers (1,000 calls a second) over the
// default stages at a tenth of their length, for the command's tests.
var quickServer = herd.Server{Workers: 20, Stages: []herd.Stage{
	{Name: "warmup", Duration: time.Second, Load: 0.5, Capacity: 1},
	{Name: "overload", Duration: 2 * time.Second, Load: 2, Capacity: 1},
	{Name: "capacity-down", Duration: 2 * time.Second, Load: 2, Capacity: 0.5},
	{Name: "capacity-up", Duration: 2 * time.Second, Load: 2, Capacity: 1},
}}

// runQuick runs the command with args on quickServer and returns its exit
// code and output.
func runQuick(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	o, err := parseArgs(args, &errb)
	if err != nil {
		t.Fatalf("parseArgs(%q): %v", args, err)
	}
	o.overloadServer = quickServer
	code = execute(context.Background(), o, &out, &errb, false)
	return code, out.String(), errb.String()
}

var overloadArgs = []string{"-scenario", "overload", "-clients", "2", "-quiet"}

// quickOutputs runs the sweep of args on quickServer once, and writes its
// rows in each format, as the command does after its sweep.
func quickOutputs(t *testing.T, args ...string) (table, csv, json string) {
	t.Helper()
	o, err := parseArgs(args, new(bytes.Buffer))
	if err != nil {
		t.Fatalf("parseArgs(%q): %v", args, err)
	}
	o.overloadServer = quickServer
	rows, err := sweep(context.Background(), o, func() {})
	if err != nil {
		t.Fatal(err)
	}
	var out [3]bytes.Buffer
	for i, format := range []string{"table", "csv", "json"} {
		if err := writeRows(&out[i], format, rows); err != nil {
			t.Fatal(err)
		}
	}
	return out[0].String(), out[1].String(), out[2].String()
}

// The overload table has its own columns and one row per strategy, the
// limiter's named adaptive-…: without a guard the goodput collapses and
// the p99 is the timeout; the others serve the capacity. The settle times
// are marked "-" for the fleets whose limit does not move. CSV and JSON
// say the same, under the same names, of the same runs.
func TestOverloadOutput(t *testing.T) {
	t.Parallel()
	table, csvOut, jsonOut := quickOutputs(t, overloadArgs...)
	lines := strings.Split(table, "\n")
	header := overloadColumnsOf(true)
	if got := strings.Fields(lines[0]); !slices.Equal(got, header) {
		t.Fatalf("table header %q, want %q", got, header)
	}
	cells := map[string]map[string]string{}
	names := tableCells(cells, header, lines[1:5])
	if want := []string{"none", "bulkhead", "adaptive-gradient", "adaptive-vegas"}; !slices.Equal(names, want) {
		t.Fatalf("strategies %q, want %q:\n%s", names, want, table)
	}
	checkRanges(t, table, cells, []cellRange{
		{"none", "goodput", 0, 0.5}, // it serves in time until its queue passes the timeout
		{"none", "p99_x", 24.9, 25.1},
		{"none", "timed_out", 0.5, 1},
		{"bulkhead", "goodput", 0.9, 1.05},
		{"bulkhead", "refused", 0.3, 0.7},
		{"adaptive-gradient", "goodput", 0.9, 1.05},
		{"adaptive-vegas", "goodput", 0.9, 1.05},
		{"adaptive-vegas", "p50_x", 1, 2},
		{"adaptive-vegas", "timed_out", 0, 0},
		{"adaptive-vegas", "capacity_down_s", 0, 1.5},
	})
	for _, s := range []string{"none", "bulkhead"} {
		if got := cells[s]["load_up_s"]; got != "-" {
			t.Errorf("%s load_up_s = %q, want -", s, got)
		}
	}
	if !strings.Contains(table, "-: the fleet's limit does not move") {
		t.Errorf("the table does not explain -:\n%s", table)
	}

	recs, rows := csvAndJSON(t, csvOut, jsonOut, true)
	if !slices.Equal(recs[0], overloadColumnsOf(false)) || len(recs) != 5 {
		t.Fatalf("CSV header %q (%d records), want %q", recs[0], len(recs), overloadColumnsOf(false))
	}
	if rows[0]["load_up_s"] != nil || rows[3]["load_up_s"] == nil || rows[3]["settled"] != true || rows[0]["settled"] != false {
		t.Errorf("settle times: none %v, adaptive-vegas %v", rows[0], rows[3])
	}
}

// With overload and another scenario, the table has a block of each and
// the CSV file one header over both, each row leaving the other's
// columns empty.
func TestOverloadMixedOutput(t *testing.T) {
	t.Parallel()
	args := []string{"-scenario", "restart,overload", "-clients", "2", "-strategies", "full,adaptive-vegas", "-quiet"}
	_, table, _ := runQuick(t, append(args, "-chart", "none")...)
	_, out, _ := runQuick(t, append(args, "-format", "csv")...)
	checkMixedOutput(t, table, out, "overload", "goodput")
}

// The overload chart has a row of panels per strategy, and no chart
// against the fleet size.
func TestOverloadChart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, _, errs := runQuick(t, "-scenario", "overload", "-clients", "1,2", "-chart", "svg", "-out", dir)
	if code != 0 || !strings.Contains(errs, "wrote 2 charts") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, n := range []string{"1", "2"} {
		b, err := os.ReadFile(filepath.Join(dir, "overload-timeline-"+n+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		svg := string(b)
		for _, want := range []string{"Overload (overload), " + n + " clients", "adaptive-vegas", "bulkhead", "none",
			"p99 latency ÷ no-load latency", "limit (dashed: capacity × no-load latency)", "goodput ÷ capacity"} {
			if !strings.Contains(svg, want) {
				t.Errorf("overload-timeline-%s.svg lacks %q", n, want)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "overload-vs-clients.svg")); !os.IsNotExist(err) {
		t.Errorf("an overload chart against the fleet size: %v", err)
	}
}

// overload runs only when asked: it is not among the default scenarios,
// but all includes it; its strategies belong to it alone.
func TestOverloadFlags(t *testing.T) {
	t.Parallel()
	o, err := parseArgs(nil, new(bytes.Buffer))
	if err != nil || slices.Contains(o.scenarios, herd.Overload) {
		t.Fatalf("the default run: %v, %v", o.scenarios, err)
	}
	o, err = parseArgs([]string{"-scenario", "overload"}, new(bytes.Buffer))
	if err != nil || !slices.Equal(o.overloadClients, []int{defaultOverloadClients}) || len(o.overloadStrategies) != 4 {
		t.Fatalf("-scenario overload: %v, %v, %v", o.overloadClients, strategyList(o.overloadStrategies), err)
	}
	o, err = parseArgs([]string{"-scenario", "all"}, new(bytes.Buffer))
	if err != nil || !slices.Equal(o.scenarios, herd.Scenarios()) {
		t.Fatalf("-scenario all: %v, %v", o.scenarios, err)
	}
	o, err = parseArgs([]string{"-scenario", "all", "-strategies", "adaptive-gradient"}, new(bytes.Buffer))
	if err != nil || !slices.Equal(o.scenarios, []herd.Scenario{herd.Overload}) || strategyList(o.overloadStrategies)[0] != "adaptive-gradient" {
		t.Fatalf("-strategies adaptive-gradient: %v, %v", o.scenarios, err)
	}
	var errb bytes.Buffer
	if _, err := parseArgs([]string{"-strategies", "adaptive-vegas"}, &errb); err == nil || !strings.Contains(err.Error(), "overload none, bulkhead, adaptive-gradient, adaptive-vegas") {
		t.Fatalf("an overload strategy with the default scenarios: %v", err)
	}
	// A fixed bulkhead is sized for the fleet it is in.
	cfg := o.config(herd.Overload, 4, herd.Strategy{Name: "bulkhead"}, 0)
	if cfg.NewGuards == nil || cfg.NewBackOff != nil || cfg.Validate() != nil {
		t.Fatalf("the bulkhead's configuration: %+v", cfg)
	}
}
