package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// liveOptions parses args for -live, and sets the limit directly, since
// the command line rejects limits shorter than the real outage.
func liveOptions(t *testing.T, limit time.Duration, args ...string) *options {
	t.Helper()
	o, err := parseArgs(append([]string{"-live"}, args...), new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	o.liveLimit = limit
	return o
}

// TestLive runs the live mode for real, with a 20 ms outage and a small
// fleet, so that it takes a few tens of milliseconds.
func TestLive(t *testing.T) {
	t.Parallel()
	o := liveOptions(t, 20*time.Second, "-clients", "10", "-capacity", "5", "-strategies", "full,immediate",
		"-base", "1ms", "-max-calls", "100000")
	const outage = 20 * time.Millisecond
	var progress bytes.Buffer
	rows, err := liveRun(context.Background(), o, outage, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	for _, r := range rows {
		if r.Scenario != "live" || r.Clients != 10 || r.Failed != 0 || r.Unfinished != 0 {
			t.Errorf("%s: %+v; want every client to succeed", r.Strategy, r)
		}
		if r.Completion < outage || r.Calls < 10 {
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
	// How many calls each strategy makes in real time depends on how busy
	// the machine is, so the test checks the accounting, not the race.
	// One line per strategy, in order, each written when it is done.
	lines := strings.Split(strings.TrimRight(progress.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "herd: live 1/2 full") || !strings.HasPrefix(lines[1], "herd: live 2/2 immediate") ||
		!strings.Contains(lines[0], "10 of 10 succeeded, the last at ") {
		t.Errorf("progress:\n%s", progress.String())
	}
}

// Against a server that never recovers, every client is still failing at
// the limit: the row says so, with the limit as a lower bound.
func TestLiveGivesUpAtTheLimit(t *testing.T) {
	t.Parallel()
	const limit = 60 * time.Millisecond
	o := liveOptions(t, limit, "-clients", "10", "-strategies", "no-jitter", "-base", "1ms")
	start := time.Now()
	var progress bytes.Buffer
	rows, err := liveRun(context.Background(), o, time.Hour, &progress) // never recovers
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.Failed != 10 || r.Unfinished != 10 || r.Completion != limit {
		t.Errorf("failed %v, unfinished %v, completion %v; want all 10 unfinished at the %v limit", r.Failed, r.Unfinished, r.Completion, limit)
	}
	if got := cells(r, true)[4]; got != ">0.06s" {
		t.Errorf("the table shows %q for the last success, want >0.06s", got)
	}
	if !strings.Contains(progress.String(), "0 of 10 succeeded; 10 still failing at the 60ms limit") {
		t.Errorf("progress: %q", progress.String())
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the live run took %v, over its %v limit by far", d, limit)
	}
}

// Clients whose attempts run out gave up: they are failed, but not
// unfinished, and the run ends with them, long before the limit.
func TestLiveClientsGiveUpAfterMaxCalls(t *testing.T) {
	t.Parallel()
	const limit = 20 * time.Second
	o := liveOptions(t, limit, "-clients", "10", "-strategies", "immediate", "-max-calls", "3")
	start := time.Now()
	rows, err := liveRun(context.Background(), o, time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.Failed != 10 || r.Unfinished != 0 || r.Calls != 30 {
		t.Errorf("failed %v, unfinished %v, calls %v; want all 10 to give up after 3 calls each", r.Failed, r.Unfinished, r.Calls)
	}
	if got := cells(r, true)[4]; got != "-" {
		t.Errorf("the table shows %q for the last success, want - (none)", got)
	}
	if d := time.Since(start); d > limit/2 {
		t.Errorf("the run took %v: it waited for the limit", d)
	}
}

func TestLiveStopsOnCancel(t *testing.T) {
	t.Parallel()
	o := liveOptions(t, 20*time.Second, "-clients", "5", "-strategies", "full")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := liveRun(ctx, o, time.Hour, nil); err == nil {
		t.Fatal("a cancelled live run reported no error")
	}
}
