package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// readmeShedRow is a row of the README's table of the shed and pushback
// scenarios: | clients | server | calls | last_success_s | peak_per_10ms |
// peak after the first 50 ms |.
var readmeShedRow = regexp.MustCompile("^\\| ([0-9,]+) \\| [^|]*\\(`(shed|pushback)`\\) \\| ([0-9,]+) \\| ([0-9.]+) \\| ([0-9,]+) \\| ([0-9,]+) \\|$")

// The README's table of the shed and pushback scenarios is what the
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
	b, err := os.ReadFile("../../README.md")
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
			t.Fatalf("README: %q is not a number", s)
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
				t.Errorf("%s, %d clients: calls, last success, peak, peak after 50 ms are %s (%v failed); the README says %s", scenario, clients, got, r.Failed, want)
			}
		}
		if !found {
			t.Errorf("no row of the sweep for the README's %s, %d clients", scenario, clients)
		}
	}
	if seen != 6 {
		t.Fatalf("%d rows of the shed and pushback table in the README; want 6 (100, 1,000 and 10,000 clients of each)", seen)
	}
}
