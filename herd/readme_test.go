package herd_test

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/herdsafe/backoff/herd"
)

// readmeShedRow is a row of the README's table of the shed and pushback
// scenarios: | clients | server | calls | last_success_s | peak_per_10ms |
// peak after the first 50 ms |.
var readmeShedRow = regexp.MustCompile("^\\| ([0-9,]+) \\| [^|]*\\(`(shed|pushback)`\\) \\| ([0-9,]+) \\| ([0-9.]+) \\| ([0-9,]+) \\| ([0-9,]+) \\|$")

// The README's table of the shed and pushback scenarios, at 100, 1,000
// and 10,000 clients of full jitter, is what the simulation gives: each
// row's calls, last success, busiest 10 ms and busiest 10 ms after the
// first wave. (The command prints the same runs: go run ./cmd/herd
// -scenario shed,pushback -clients 100,1000,10000 -strategies full.)
func TestREADMEPushbackTable(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../README.md")
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
	rows := 0
	for line := range strings.SplitSeq(string(b), "\n") {
		m := readmeShedRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rows++
		sc, n := herd.Scenario(m[2]), num(m[1])
		want := []string{fmt.Sprint(num(m[3])), m[4], fmt.Sprint(num(m[5])), fmt.Sprint(num(m[6]))}
		t.Run(fmt.Sprintf("%s/%d", sc, n), func(t *testing.T) {
			t.Parallel()
			r := shedRun(t, sc, n)
			got := []string{fmt.Sprint(r.Calls), fmt.Sprintf("%.2f", r.Completion.Seconds()), fmt.Sprint(r.PeakLoad), fmt.Sprint(afterFirstWave(r))}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("calls, last success, peak, peak after 50 ms are %v; the README says %v", got, want)
			}
			if r.Succeeded != n {
				t.Errorf("%d of %d succeeded; want all", r.Succeeded, n)
			}
		})
	}
	if rows != 6 {
		t.Fatalf("%d rows of the shed and pushback table in the README; want 6 (100, 1,000 and 10,000 clients of each)", rows)
	}
}
