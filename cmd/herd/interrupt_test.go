package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/herd"
)

// cancelOnWait is a BackOff that calls cancel the first time it is asked
// for a wait, and counts the waits asked of it.
type cancelOnWait struct {
	backoff.BackOff
	cancel func()
	asked  *atomic.Int64
}

func (p *cancelOnWait) NextBackOff() time.Duration {
	p.asked.Add(1)
	p.cancel()
	return p.BackOff.NextBackOff()
}

// interrupting is no-jitter, except that the BackOffs built after the
// first few cancel a context when first asked for a wait: run in order, a
// sweep of a small fleet, then a large one, is interrupted in the middle
// of the large one's simulation, as a Ctrl-C would.
func interrupting(first int, cancel func(), asked *atomic.Int64) herd.Strategy {
	var built atomic.Int64
	noJitter := herd.NoJitter(herd.DefaultBase, herd.DefaultCap)
	return herd.Strategy{Name: "no-jitter", NewBackOff: func() backoff.BackOff {
		if built.Add(1) <= int64(first) {
			return noJitter()
		}
		return &cancelOnWait{BackOff: noJitter(), cancel: cancel, asked: asked}
	}}
}

// interruptedSweep returns the options of a sweep of 5 clients, then
// 2000, in order, that is interrupted in the 2000-client simulation;
// that one, run to the end, would take hundreds of thousands of waits.
func interruptedSweep(t *testing.T, cancel func(), asked *atomic.Int64, args ...string) *options {
	t.Helper()
	o, err := parseArgs(append([]string{"-clients", "5,2000", "-scenario", "occ", "-strategies", "no-jitter"}, args...), new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	o.strategies = []herd.Strategy{interrupting(5, cancel, asked)}
	o.workers = 1
	return o
}

// An interrupt stops the simulation in progress within a few events, and
// the sweep returns the rows that finished.
func TestSweepStopsTheSimulationInProgress(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var asked atomic.Int64
	o := interruptedSweep(t, cancel, &asked)
	ticks := 0
	rows, err := sweep(ctx, o, func() { ticks++ })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("sweep: %v, want context.Canceled", err)
	}
	if len(rows) != 1 || rows[0].Clients != 5 || rows[0].Calls == 0 || ticks != 1 {
		t.Fatalf("%d ticks, rows %+v; want the 5-client row alone", ticks, rows)
	}
	// The simulation looks at its context every 1024 events: it asked
	// for a wait or two more after the cancellation, not millions.
	if n := asked.Load(); n > 1024 {
		t.Errorf("the interrupted simulation asked for %d waits", n)
	}
}

// Interrupted, the command prints the rows that finished, writes no chart,
// says so, and exits 130.
func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var asked atomic.Int64
	dir := t.TempDir()
	o := interruptedSweep(t, cancel, &asked, "-format", "csv", "-chart", "svg", "-out", dir)
	var stdout, stderr bytes.Buffer
	if code := execute(ctx, o, &stdout, &stderr, false); code != exitInterrupted {
		t.Fatalf("exit %d, want %d; stderr %q", code, exitInterrupted, stderr.String())
	}
	recs, err := csv.NewReader(&stdout).ReadAll()
	if err != nil || len(recs) != 2 || recs[1][2] != "5" {
		t.Fatalf("stdout: %v, %v; want the header and the 5-client row", recs, err)
	}
	if got := stderr.String(); got != "herd: interrupted: 1 of 2 rows finished, printed above; no chart written\n" {
		t.Errorf("stderr %q", got)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 0 {
		t.Errorf("charts written after the interrupt: %v", names)
	}

	// Interrupted before anything finished, it still exits 130, with an
	// empty table.
	stdout.Reset()
	stderr.Reset()
	o.format = "table"
	if code := execute(ctx, o, &stdout, &stderr, false); code != exitInterrupted || strings.Count(stdout.String(), "\n") != 1 ||
		!strings.Contains(stderr.String(), "0 of 2 rows finished") {
		t.Errorf("already interrupted: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
