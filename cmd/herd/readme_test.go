package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/herdsafe/backoff/herd"
)

// simulatorGuide is the guide that quotes the command's tables. The tests
// below kept their names from the time the tables were in README.md
// (.ci/run runs them by name).
const simulatorGuide = "../../docs/simulator.md"

// readmeShedRow is a row of the guide's table of the shed and pushback
// scenarios: | clients | server | calls | last_success_s | peak_per_10ms |
// peak after the first 50 ms |.
var readmeShedRow = regexp.MustCompile("^\\| ([0-9,]+) \\| [^|]*\\(`(shed|pushback)`\\) \\| ([0-9,]+) \\| ([0-9.]+) \\| ([0-9,]+) \\| ([0-9,]+) \\|$")

// The guide's table of the shed and pushback scenarios is what the
// command it quotes gives (go run ./cmd/herd -scenario shed,pushback
// -clients 100,1000,10000 -strategies full): each row's calls, last
// success and busiest 10 ms, and the busiest 10 ms after the first 50 ms,
// read from the timeline. The sweep runs each fleet once. Under the race
// detector the rows of 10,000 clients, some 175,000 calls, are left out:
// .ci/run checks them in a run of this test without it.
func TestREADMEShedTable(t *testing.T) {
	t.Parallel()
	sizes := "100,1000,10000"
	if raceDetector {
		sizes = "100,1000"
	}
	b, err := os.ReadFile(simulatorGuide)
	if err != nil {
		t.Fatal(err)
	}
	o, err := parseArgs([]string{"-scenario", "shed,pushback", "-clients", sizes, "-strategies", "full", "-chart", "none", "-quiet"}, new(strings.Builder))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := sweep(context.Background(), o, func() {})
	if err != nil {
		t.Fatal(err)
	}
	num := func(s string) int {
		n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
		if err != nil {
			t.Fatalf("%s: %q is not a number", simulatorGuide, s)
		}
		return n
	}
	seen := 0
	for line := range strings.SplitSeq(string(b), "\n") {
		m := readmeShedRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		seen++
		scenario, clients := m[2], num(m[1])
		if raceDetector && clients == 10000 {
			t.Logf("%s, %d clients: checked without the race detector", scenario, clients)
			continue
		}
		want := fmt.Sprintf("%d %s %d %d", num(m[3]), m[4], num(m[5]), num(m[6]))
		found := false
		for _, r := range rows {
			if r.Scenario != scenario || r.Clients != clients {
				continue
			}
			found = true
			after := 0 // the busiest window from 50 ms on
			for i, n := range r.timeline {
				if i >= 5 {
					after = max(after, n)
				}
			}
			if got := fmt.Sprintf("%.0f %.2f %.0f %d", r.Calls, r.Seconds, r.PeakLoad, after); got != want || r.Failed != 0 {
				t.Errorf("%s, %d clients: calls, last success, peak, peak after 50 ms are %s (%v failed); the guide says %s", scenario, clients, got, r.Failed, want)
			}
		}
		if !found {
			t.Errorf("no row of the sweep for the guide's %s, %d clients", scenario, clients)
		}
	}
	if seen != 6 {
		t.Fatalf("%d rows of the shed and pushback table in the guide; want 6 (100, 1,000 and 10,000 clients of each)", seen)
	}
}

// The guide's tables of the default run (go run ./cmd/herd) are what it
// prints: the contention and restart rows it quotes, and the outage's
// table, cell by cell as the command's table writes them. The default run
// is some 5 million calls, too slow under the race detector: .ci/run
// checks it in a run of this test without it.
func TestREADMEDefaultTables(t *testing.T) {
	t.Parallel()
	if raceDetector {
		t.Skip("the default run is checked without the race detector (.ci/run)")
	}
	rows := readmeSweep(t, "-chart", "none", "-quiet")
	readme := readGuide(t)
	checkREADMETable(t, readme, "| scenario, clients | strategy | calls | last_success_s | peak_per_10ms |", rows, "", 12)
	checkREADMETable(t, readme, "| strategy | outage_x | outage_peak_x | degraded_x | recovery_s | success_s | degraded_failed_pct | healthy_failed_pct | user_failed |", rows, "outage", len(herd.OutageStrategies()))
}

// The guide's table of the overload scenario is what go run ./cmd/herd
// -scenario overload prints, cell by cell. Its 2.9 million calls are too
// many under the race detector: .ci/run checks it in a run of this test
// without it.
func TestREADMEOverloadTable(t *testing.T) {
	t.Parallel()
	if raceDetector {
		t.Skip("the overload run is checked without the race detector (.ci/run)")
	}
	rows := readmeSweep(t, "-scenario", "overload", "-chart", "none", "-quiet")
	checkREADMETable(t, readGuide(t), "| strategy | goodput | p50_x | p99_x | p99_p99 | timed_out | refused | load_up_s | capacity_down_s | capacity_up_s |",
		rows, "overload", len(overloadStrategyNames()))
}

// readGuide returns the text of the simulator's guide.
func readGuide(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(simulatorGuide)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readmeSweep returns the rows the command makes of args.
func readmeSweep(t *testing.T, args ...string) []row {
	t.Helper()
	o, err := parseArgs(args, new(strings.Builder))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := sweep(context.Background(), o, func() {})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// checkREADMETable compares the want rows of the guide's table under
// header with rows: each of its columns but the first names a column of
// the command's table, whose cell (the guide writes thousands with
// commas) must be the command's. The first column is the strategy, of the
// rows of scenario, or "scenario, clients" then the strategy.
func checkREADMETable(t *testing.T, readme, header string, rows []row, scenario string, want int) {
	t.Helper()
	split := func(line string) []string {
		parts := strings.Split(strings.Trim(line, "|"), "|")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		return parts
	}
	names := split(header)
	lines := strings.Split(readme, "\n")
	start := slices.Index(lines, header)
	if start < 0 {
		t.Fatalf("%s has no table %s", simulatorGuide, header)
	}
	seen := 0
	for _, line := range lines[start+2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		seen++
		got := split(line)
		if len(got) != len(names) {
			t.Errorf(simulatorGuide+": %q has %d cells; its header %d", line, len(got), len(names))
			continue
		}
		sc, clients, strategy := scenario, 0, got[0]
		key := names[0]
		if key == "scenario, clients" {
			var n string
			sc, n, _ = strings.Cut(got[0], ", ")
			clients, _ = strconv.Atoi(n)
			strategy, key = got[1], "strategy"
		}
		var match []row
		for _, r := range rows {
			if r.Scenario == sc && r.Strategy == strategy && (clients == 0 || r.Clients == clients) {
				match = append(match, r)
			}
		}
		if len(match) != 1 {
			t.Errorf(simulatorGuide+": %q: %d rows of the command for %s, %s, %d clients; want 1", line, len(match), sc, strategy, clients)
			continue
		}
		for i, name := range names {
			if name == key || name == names[0] {
				continue
			}
			if want, cell := strings.ReplaceAll(got[i], ",", ""), cell(match[0], name, true); cell != want {
				t.Errorf(simulatorGuide+": %s, %d clients, %s: %s is %s; the command prints %s", sc, match[0].Clients, strategy, name, got[i], cell)
			}
		}
	}
	if seen != want {
		t.Errorf(simulatorGuide+": %d rows in the table %s; want %d", seen, header, want)
	}
}
