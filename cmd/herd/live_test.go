package main

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// TestLive runs the live mode for real with a short outage and a small
// fleet. It spends about a second of real time, so -short skips it.
func TestLive(t *testing.T) {
	if testing.Short() {
		t.Skip("live mode spends real time")
	}
	o, err := parseArgs([]string{"-live", "-clients", "20", "-capacity", "2", "-strategies", "full,immediate",
		"-max-calls", "100000", "-live-limit", "20s"}, new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	const outage = 100 * time.Millisecond
	rows, err := liveRun(context.Background(), o, outage)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	for _, r := range rows {
		if r.Scenario != "live" || r.Clients != 20 || r.Failed != 0 {
			t.Errorf("%s: %+v; want every client to succeed", r.Strategy, r)
		}
		if r.Completion < outage || r.Calls < 20 {
			t.Errorf("%s: done in %v with %v calls; the outage alone is %v and every client calls", r.Strategy, r.Completion, r.Calls, outage)
		}
		var sum int
		for _, n := range r.timeline {
			sum += n
		}
		if float64(sum) != r.Calls || r.PeakLoad < 1 {
			t.Errorf("%s: timeline sums to %d, calls %v, peak %v", r.Strategy, sum, r.Calls, r.PeakLoad)
		}
	}
	// Immediate retry keeps calling all through the outage.
	if full, imm := rows[0], rows[1]; imm.Calls <= full.Calls {
		t.Errorf("immediate made %v calls, full jitter %v", imm.Calls, full.Calls)
	}
}

func TestLiveGivesUpAtTheLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("live mode spends real time")
	}
	o, err := parseArgs([]string{"-live", "-clients", "10", "-strategies", "no-jitter", "-live-limit", "300ms"}, new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rows, err := liveRun(context.Background(), o, time.Hour) // never recovers
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Failed != 10 {
		t.Errorf("%v of 10 clients failed against a server that never recovers", rows[0].Failed)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the live run took %v, over its 300ms limit by far", d)
	}
}
