package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdsafe/backoff/herd"
)

// The amplification timeline averages whole windows per bin, drawn at the
// bin's centre, divided by the base load; windows past the end of the
// timeline count as empty.
func TestMeanBins(t *testing.T) {
	t.Parallel()
	w := 10 * time.Millisecond
	pts := meanBins([]int{10, 30, 20, 20, 40}, w, 2*w, 60*time.Millisecond, 10)
	want := [][2]float64{{0.01, 2}, {0.03, 2}, {0.05, 2}} // the last window is past the timeline: (40+0)/2
	if len(pts) != len(want) {
		t.Fatalf("%d points, want %d: %v", len(pts), len(want), pts)
	}
	for i, p := range pts {
		if math.Abs(p.X-want[i][0]) > 1e-12 || p.Y != want[i][1] {
			t.Errorf("point %d = (%v, %v), want %v", i, p.X, p.Y, want[i])
		}
	}
	if pts := meanBins([]int{1, 2}, w, w, 20*time.Millisecond, 0); len(pts) != 0 {
		t.Errorf("a base of 0 drew %v", pts)
	}
	if got := binWidth(w, 6*time.Minute); got != 300*time.Millisecond {
		t.Errorf("bins of 6 minutes of 10 ms windows: %v, want 300ms (1200 bins)", got)
	}
	if got := binWidth(w, time.Second); got != w {
		t.Errorf("bins of a second: %v, want one window each", got)
	}
}

// The linear time axis has five to ten round, distinct labels in range,
// whatever the length of the run.
func TestLinearTimeTicks(t *testing.T) {
	t.Parallel()
	for _, hi := range []float64{0.5, 1, 5, 6, 30, 360, 3600, 86400} {
		ticks := linearTimeTicks{}.Ticks(0, hi)
		seen := map[string]bool{}
		for _, tk := range ticks {
			if tk.Value < 0 || tk.Value > hi*(1+1e-9) || seen[tk.Label] || len(tk.Label) > 7 {
				t.Errorf("0..%vs: tick %v %q", hi, tk.Value, tk.Label)
			}
			seen[tk.Label] = true
		}
		if len(ticks) < 3 || len(ticks) > 11 {
			t.Errorf("0..%vs: %d ticks", hi, len(ticks))
		}
	}
	if got := (linearTimeTicks{}).Ticks(0, 360); got[1].Label != "60s" {
		t.Errorf("six minutes: ticks %v, want a minute apart", got)
	}
	if got := (linearTimeTicks{}).Ticks(1, 1); got != nil {
		t.Errorf("an empty range: %v", got)
	}
}

func TestOutageNote(t *testing.T) {
	t.Parallel()
	r := row{DownX: 2.996, DownPeakX: 4.1, DegradedX: 1.393, Recovery: 100 * time.Millisecond, Recovered: true, UserCalls: 1000, UserFailed: 171}
	if got, want := outageNote(r), "3× the base load while down (busiest 10 ms 4.1×), 1.39× degraded; back to normal 100ms into the healthy phase; 17.1% of the user calls failed"; got != want {
		t.Errorf("note = %q\nwant %q", got, want)
	}
	r.Recovered, r.Recovery = false, 2*time.Minute
	if got := outageNote(r); !strings.Contains(got, "not back to normal 120s into it") {
		t.Errorf("not recovered: %q", got)
	}
}

// The outage scenario gets an amplification timeline per fleet size, and
// no chart against the fleet size.
func TestOutageCharts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := append([]string{"-clients", "5,10", "-scenario", "outage", "-strategies", "retry,breaker", "-chart", "svg", "-out", dir}, shortOutage...)
	if code, _, errs := runCmd(t, args...); code != 0 || !strings.Contains(errs, "wrote 2 charts") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, n := range []string{"5", "10"} {
		b, err := os.ReadFile(filepath.Join(dir, "outage-timeline-"+n+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		svg := string(b)
		for _, want := range []string{"Dependency outage (outage), " + n + " clients", "retry", "breaker", "the base load while down"} {
			if !strings.Contains(svg, want) {
				t.Errorf("outage-timeline-%s.svg lacks %q", n, want)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "outage-vs-clients.svg")); !os.IsNotExist(err) {
		t.Errorf("an outage chart against the fleet size: %v", err)
	}
	// The phases of the chart are those of the run.
	if b := phaseBounds(herd.Phases{Warmup: 2 * time.Second, Down: time.Second, Healthy: time.Second}); b[herd.PhaseDegraded] != 3*time.Second || b[herd.NumPhases] != 4*time.Second {
		t.Errorf("phase bounds %v", b)
	}
}
