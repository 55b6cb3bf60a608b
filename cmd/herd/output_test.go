package main

import (
	"bytes"
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
	if got, want := cells(r, false), []string{"occ", "full", "10", "2", "41.5", "1.250", "7", "3", "2"}; !slices.Equal(got, want) {
		t.Errorf("CSV cells %q, want %q", got, want)
	}
	if got, want := tableCells(cells(r, true)), []string{"occ", "full", "10", "41.5", ">1.25", "7", "3", "2"}; !slices.Equal(got, want) {
		t.Errorf("table cells %q, want %q", got, want)
	}
	if len(cells(r, true)) != len(columns) {
		t.Errorf("%d cells for %d columns", len(cells(r, true)), len(columns))
	}
}
