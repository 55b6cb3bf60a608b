package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTableIsAligned(t *testing.T) {
	t.Parallel()
	rows := []row{
		{Scenario: "occ", Strategy: "no-jitter", Clients: 100, Calls: 1834, Seconds: 60.097, PeakLoad: 57},
		{Scenario: "occ", Strategy: "full", Clients: 100, Calls: 866.5, Seconds: 4.46, PeakLoad: 5, Failed: 1},
		{Scenario: "restart", Strategy: "decorrelated", Clients: 1000, Calls: 7, Seconds: 0.1, PeakLoad: 555},
	}
	var b bytes.Buffer
	if err := writeTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 5 || lines[3] != "" {
		t.Fatalf("want a header, two rows, a blank line between scenarios and a row:\n%s", b.String())
	}
	width := len(lines[0])
	for _, l := range []string{lines[1], lines[2], lines[4]} {
		if len(l) != width {
			t.Errorf("line %q is %d wide, header %d", l, len(l), width)
		}
	}
	// Numbers are right-aligned under their header.
	end := strings.Index(lines[0], "calls") + len("calls")
	for _, l := range []string{lines[1], lines[2], lines[4]} {
		if l[end-1] == ' ' || (end < len(l) && l[end] != ' ') {
			t.Errorf("calls not right-aligned at column %d in %q", end, l)
		}
	}
	for _, want := range []string{" 60.10 ", "866.5", "1834"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q", want)
		}
	}
}

func TestNumber(t *testing.T) {
	t.Parallel()
	for v, want := range map[float64]string{0: "0", 12: "12", 12.25: "12.2", 1e6: "1000000", 0.5: "0.5"} {
		if got := number(v); got != want {
			t.Errorf("number(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestBar(t *testing.T) {
	t.Parallel()
	cases := []struct {
		done, total int
		hashes      int
	}{{0, 10, 0}, {5, 10, barWidth / 2}, {10, 10, barWidth}, {3, 0, 0}}
	for _, tc := range cases {
		b := bar(tc.done, tc.total)
		if got := strings.Count(b, "#"); got != tc.hashes || !strings.HasPrefix(b, "[") || len(b) < barWidth+2 {
			t.Errorf("bar(%d, %d) = %q: %d filled, want %d", tc.done, tc.total, b, got, tc.hashes)
		}
	}
}

func TestProgressStaysQuietWhenQuick(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	now := time.Unix(0, 0)
	p := newProgress(&b, 4)
	p.start, p.now = now, func() time.Time { return now }
	p.tick()
	if b.Len() != 0 {
		t.Fatalf("drew %q before the delay passed", b.String())
	}
	now = now.Add(time.Second)
	p.tick()
	if !strings.Contains(b.String(), "2/4 runs") {
		t.Fatalf("drew %q, want the bar at 2/4", b.String())
	}
	p.tick() // too soon after the last drawing
	if strings.Contains(b.String(), "3/4") {
		t.Fatalf("redrew at once: %q", b.String())
	}
	p.tick() // the last one is always drawn
	if !strings.Contains(b.String(), "4/4 runs") {
		t.Fatalf("drew %q, want the bar at 4/4", b.String())
	}
	p.finish()
	if !strings.HasSuffix(b.String(), "\r") || strings.Count(b.String(), "\r") != 4 {
		t.Fatalf("finish did not erase the bar: %q", b.String())
	}

	// Without a terminal there is nothing to draw on, however long it runs.
	q := newProgress(nil, 2)
	q.start = now.Add(-time.Hour)
	q.tick()
	q.finish()
	if q.drawn || q.done != 1 {
		t.Fatalf("a progress without a writer: drawn %v, done %d", q.drawn, q.done)
	}
}

// The time of the last success is marked when it is not the time until all
// succeeded: ">T" when clients were still failing at the cut-off T, "-" when
// none succeeded; each mark is explained under the table.
func TestTableMarksCompletion(t *testing.T) {
	t.Parallel()
	rows := []row{
		{Scenario: "live", Strategy: "no-jitter", Clients: 300, Calls: 900, Seconds: 6, Failed: 280, Unfinished: 280},
		{Scenario: "live", Strategy: "immediate", Clients: 300, Calls: 3000, Failed: 300},
		{Scenario: "live", Strategy: "full", Clients: 300, Calls: 700, Seconds: 3.1, Failed: 2},
	}
	var b bytes.Buffer
	if err := writeTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"last_success_s", " >6.00 ", "     - ", " 3.10 ", "unfinished: clients still retrying", "-: no client succeeded"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := writeTable(&b, rows[2:]); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), ">T") || strings.Contains(b.String(), "-:") || strings.Contains(b.String(), "Each row") {
		t.Errorf("notes without a mark to explain:\n%s", b.String())
	}
	// Rows that average several runs say so.
	b.Reset()
	rows[2].Runs = 3
	if err := writeTable(&b, rows[2:]); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Each row is the mean of 3 runs") {
		t.Errorf("no word of the runs:\n%s", b.String())
	}
}

// The table has a column per field but runs; the CSV file has them all,
// unfinished included, under the same names.
func TestCellsFollowTheColumns(t *testing.T) {
	t.Parallel()
	r := row{Scenario: "occ", Strategy: "full", Clients: 10, Runs: 2, Calls: 41.5, Seconds: 1.25, PeakLoad: 7, Failed: 3, Unfinished: 2}
	if got, want := cells(r, columnsOf(false, -1), false), []string{"occ", "full", "10", "2", "41.5", "1.250", "7", "3", "2"}; !slices.Equal(got, want) {
		t.Errorf("CSV cells %q, want %q", got, want)
	}
	if got, want := cells(r, columnsOf(false, 1), true), []string{"occ", "full", "10", "41.5", ">1.25", "7", "3", "2"}; !slices.Equal(got, want) {
		t.Errorf("table cells %q, want %q", got, want)
	}
	// The columns of outage are empty in the row of another scenario.
	if got := cells(r, []string{"user_calls", "outage_x", "recovery_s", "recovered"}, false); !slices.Equal(got, []string{"", "", "", ""}) {
		t.Errorf("the outage cells of an occ row: %q", got)
	}
}

// outageArgs run the outage scenario on ten clients at 50 user calls a
// second (a base load of 5 per window) over short phases, with three
// strategies.
var outageArgs = []string{"-scenario", "outage", "-clients", "10", "-rate", "50", "-strategies", "retry,token-bucket,breaker",
	"-warmup", "2s", "-down", "3s", "-degraded", "1s", "-healthy", "2s", "-chart", "none", "-arrivals", "even"}

// The outage table has its own columns, and shows the SRE book's figures:
// three tries multiply the load of the outage by close to 3, a retry
// budget keeps it near 1, the default breaker cuts it to nearly nothing
// and, open for 60 s, refuses the calls of the healthy phase to its end.
// CSV and JSON say the same, under the same names.
func TestOutageOutput(t *testing.T) {
	t.Parallel()
	code, table, errs := runCmd(t, outageArgs...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// Two tables: the load, then the user calls, each with its header.
	lines := strings.Split(table, "\n")
	if got, want := strings.Fields(lines[0]), columnsOf(true, 1); !slices.Equal(got, want) {
		t.Fatalf("table header %q, want %q", got, want)
	}
	if got, want := strings.Fields(lines[5]), columnsOf(true, 2); !slices.Equal(got, want) || lines[4] != "" {
		t.Fatalf("second table's header %q, want %q after a blank line:\n%s", got, want, table)
	}
	cells := map[string]map[string]string{}
	for _, block := range [][2]int{{0, 1}, {5, 2}} {
		tableCells(cells, columnsOf(true, block[1]), lines[block[0]+1:block[0]+4])
	}
	checkRanges(t, table, cells, []cellRange{
		{"retry", "outage_x", 2.5, 3},
		{"token-bucket", "outage_x", 1, 1.1},
		{"breaker", "outage_x", 0, 0.05}, // its first failures, 5 or so per client
		{"retry", "recovery_s", 0, 0.5},
		{"retry", "user_calls", 4000, 4000},
		{"retry", "warmup_failed_pct", 0, 1},
		{"retry", "down_failed_pct", 90, 100},
		{"retry", "healthy_failed_pct", 0, 0},
		{"retry", "success_s", 0, 0},
		{"breaker", "healthy_failed_pct", 100, 100},
	})
	if got := cells["breaker"]["recovery_s"]; got != ">2.00" || !strings.Contains(table, "recovery_s >T: the fleet was not back to normal") {
		t.Errorf("the breaker's recovery reads %q; want >2.00, explained below:\n%s", got, table)
	}
	if got := cells["breaker"]["success_s"]; got != ">2.00" || !strings.Contains(table, "success_s >T: the user calls of every second did not succeed") {
		t.Errorf("the breaker's success recovery reads %q; want >2.00, explained below:\n%s", got, table)
	}

	_, csvOut, _ := runCmd(t, append(slices.Clone(outageArgs), "-format", "csv")...)
	_, jsonOut, _ := runCmd(t, append(slices.Clone(outageArgs), "-format", "json")...)
	recs, rows := csvAndJSON(t, csvOut, jsonOut, false)
	if !slices.Equal(recs[0], columnsOf(true, -1)) || len(recs) != 4 {
		t.Fatalf("CSV header %q (%d records), want %q", recs[0], len(recs), columnsOf(true, -1))
	}
	if rows[2]["strategy"] != "breaker" || rows[2]["recovered"] != false || rows[0]["recovered"] != true {
		t.Errorf("recovered: %v, %v", rows[0]["recovered"], rows[2]["recovered"])
	}
}

// With the outage and another scenario, the table has a block of each,
// and the CSV file one header over both, each leaving the other's columns
// empty; each JSON object has the keys of its own.
func TestMixedOutput(t *testing.T) {
	t.Parallel()
	args := append([]string{"-scenario", "restart,outage", "-clients", "5", "-strategies", "full,retry", "-chart", "none"}, shortOutage...)
	_, table, _ := runCmd(t, args...)
	_, out, _ := runCmd(t, append(args, "-format", "csv")...)
	recs := checkMixedOutput(t, table, out, "outage", "outage_x")
	if want := names(func(column) bool { return true }); !slices.Equal(recs[0], want) {
		t.Fatalf("CSV header %q, want every column %q", recs[0], want)
	}
	_, out, _ = runCmd(t, append(args, "-format", "json")...)
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if _, ok := rows[0]["outage_x"]; ok || len(rows[0]) != len(columnsOf(false, -1)) {
		t.Errorf("the restart object: %v", rows[0])
	}
	if _, ok := rows[1]["last_success_s"]; ok || len(rows[1]) != len(columnsOf(true, -1)) {
		t.Errorf("the outage object: %v", rows[1])
	}
}
