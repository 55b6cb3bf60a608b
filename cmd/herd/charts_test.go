package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

func TestSeconds(t *testing.T) {
	t.Parallel()
	cases := map[time.Duration]string{
		0:                         "0s",
		850 * time.Microsecond:    "850µs",
		5 * time.Millisecond:      "5ms",
		12500 * time.Microsecond:  "12.5ms",
		460 * time.Millisecond:    "460ms",
		999960 * time.Microsecond: "1s",
		time.Second:               "1s",
		1610 * time.Millisecond:   "1.61s", // Seconds() is 1.6099999999999999
		1600 * time.Millisecond:   "1.6s",
		60097 * time.Millisecond:  "60.1s",
		292660 * time.Millisecond: "292.66s",
		-1610 * time.Millisecond:  "-1.61s",
	}
	for d, want := range cases {
		if got := seconds(d); got != want {
			t.Errorf("seconds(%v) = %q, want %q", d, got, want)
		}
	}
	for d := time.Duration(0); d < 3*time.Second; d += 10 * time.Millisecond {
		if s := seconds(d); len(s) > 7 {
			t.Fatalf("seconds(%v) = %q: too long", d, s)
		}
	}
}

// Every range an axis can get must carry readable labels: two at least,
// inside the range, distinct, and without float noise.
func TestLogTicksLabelEveryRange(t *testing.T) {
	t.Parallel()
	ranges := [][2]float64{
		{0.13, 0.46}, // completion times all between 0.1 s and 1 s
		{0.5, 2}, {1.2, 1.8}, {0.005, 60}, {0.005, 0.05}, {100, 1000}, {80, 250000}, {1e-3, 1e-3 * 1.5},
	}
	for _, tk := range []logTicks{{label: timeLabel}, {label: countLabel}} {
		for _, r := range ranges {
			var labels []string
			for _, tick := range tk.Ticks(r[0], r[1]) {
				if tick.Label == "" {
					continue
				}
				if tick.Value < r[0]*0.999 || tick.Value > r[1]*1.001 {
					t.Errorf("%v: tick %v outside the range", r, tick.Value)
				}
				if strings.Contains(tick.Label, "000000") || strings.Contains(tick.Label, "99999") || len(tick.Label) > 7 {
					t.Errorf("%v: label %q is noise", r, tick.Label)
				}
				for _, l := range labels {
					if l == tick.Label {
						t.Errorf("%v: label %q twice", r, l)
					}
				}
				labels = append(labels, tick.Label)
			}
			if len(labels) < 2 {
				t.Errorf("%v: labels %q, want two at least", r, labels)
			}
		}
	}
	// Between 0.1 s and 1 s, the labels are sub-second durations.
	var labels []string
	for _, tick := range (logTicks{label: timeLabel}).Ticks(0.13, 0.46) {
		if tick.Label != "" {
			labels = append(labels, tick.Label)
		}
	}
	if strings.Join(labels, " ") != "200ms 300ms 400ms" {
		t.Errorf("labels on [130ms, 460ms]: %q", labels)
	}
}

// A window's calls are drawn at its centre: a spike in the first window
// shows before the second window starts, not at its end.
func TestThinDrawsAtWindowCentres(t *testing.T) {
	t.Parallel()
	w := 10 * time.Millisecond
	pts := thin([]int{7, 0, 3}, w, 100)
	want := []float64{0.005, 0.015, 0.025}
	for i, p := range pts {
		if d := p.X - want[i]; d > 1e-12 || d < -1e-12 {
			t.Errorf("point %d at %v s, want %v", i, p.X, want[i])
		}
	}
	// Thinned, the kept window is still drawn at its centre.
	load := make([]int, 5000)
	load[4321] = 99
	for _, p := range thin(load, w, 100) {
		if p.Y == 99 {
			if d := p.X - 43.215; d > 1e-9 || d < -1e-9 {
				t.Errorf("the spike of window 4321 drawn at %v s, want 43.215", p.X)
			}
			return
		}
	}
	t.Error("the spike was thinned away")
}

// Degenerate data draws, rather than crashing the command: no calls at
// all, every value equal, a single strategy.
func TestChartsOfDegenerateData(t *testing.T) {
	t.Parallel()
	rows := func(calls, secs float64, failed float64) []row {
		var out []row
		for _, n := range []int{1, 2} {
			out = append(out, row{Scenario: "restart", Strategy: "full", Clients: n, Runs: 1, Calls: calls,
				Seconds: secs, Completion: time.Duration(secs * float64(time.Second)), Failed: failed, window: 10 * time.Millisecond})
		}
		return out
	}
	cases := map[string][]row{
		"nothing":  rows(0, 0, 2),
		"equal":    rows(5, 0.5, 0),
		"one_call": rows(1, 1e-9, 0),
	}
	for name, rs := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			paths, err := writeCharts(dir, "svg", rs) // drawn as a PNG is, and quicker
			if err != nil || len(paths) != 3 {
				t.Fatalf("writeCharts: %v, %d charts", err, len(paths))
			}
		})
	}
	// And through the command, as reported.
	dir := t.TempDir()
	code, _, errs := runCmd(t, "-clients", "1,2", "-horizon", "1ns", "-scenario", "restart", "-strategies", "full", "-out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "restart-vs-clients.png")); err != nil {
		t.Fatal(err)
	}
}

func TestLogRange(t *testing.T) {
	t.Parallel()
	cases := []struct{ min, max, wantMin, wantMax float64 }{
		{5, 5, 2.5, 10},
		{0, 4, 2, 8},
		{1.15, 115, 1, 132.25},
	}
	for _, tc := range cases {
		a := plot.New().Y
		a.Min, a.Max = tc.min, tc.max
		logRange(&a)
		if math.Abs(a.Min-tc.wantMin) > 1e-9 || math.Abs(a.Max-tc.wantMax) > 1e-9 {
			t.Errorf("logRange(%v, %v) = %v, %v; want %v, %v", tc.min, tc.max, a.Min, a.Max, tc.wantMin, tc.wantMax)
		}
	}
	a := plot.New().Y // no data: ±Inf
	logRange(&a)
	if !(a.Min > 0 && a.Max > a.Min) {
		t.Errorf("an axis without data: [%v, %v]", a.Min, a.Max)
	}
}

func TestNote(t *testing.T) {
	t.Parallel()
	cases := []struct {
		r    row
		want string
	}{
		{row{Clients: 10, Calls: 50, Completion: 1610 * time.Millisecond}, "50 calls, all done in 1.61s"},
		{row{Clients: 10, Calls: 50, Completion: time.Second, Failed: 2}, "50 calls, 2 clients gave up, the last success at 1s"},
		{row{Clients: 10, Calls: 50, Failed: 10}, "50 calls, every client gave up"},
		{row{Clients: 10, Calls: 50, Completion: 6 * time.Second, Failed: 7, Unfinished: 7}, "50 calls, 7 clients still failing when cut off at 6s"},
		{row{Clients: 10, Calls: 50, Completion: 6 * time.Second, Failed: 7, Unfinished: 4}, "50 calls, 7 clients failed, 4 of them still failing when cut off at 6s"},
	}
	for _, tc := range cases {
		if got := note(tc.r); got != tc.want {
			t.Errorf("note(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}

// The charts against the fleet size draw a point at each fleet size
// measured, and no line from one to the next, which would claim what
// happens in between: drawn on a recording canvas, a mark is centred on
// every measured point of every strategy, and no stroke or fill joins two
// of them.
func TestScalingDrawsPointsOnly(t *testing.T) {
	t.Parallel()
	var rows []row
	for i, st := range []string{"no-jitter", "full"} {
		for j, n := range []int{10, 100, 1000} {
			rows = append(rows, row{Scenario: "restart", Strategy: st, Clients: n, Runs: 1,
				Calls: float64(n) * float64(3+2*j) * math.Pow(10, float64(i)), Seconds: 0.05 * float64(1+j*j) * math.Pow(10, float64(i)), window: 10 * time.Millisecond})
		}
	}
	f := scaling("restart", rows)
	rec := &recorder.Canvas{}
	canvases := place(f, draw.NewCanvas(rec, f.w, f.h))
	values := []func(row) float64{func(r row) float64 { return r.Calls }, func(r row) float64 { return r.Seconds }}
	if len(f.plots) != 1 || len(f.plots[0]) != len(values) {
		t.Fatalf("%d×%d plots, want 1×%d", len(f.plots), len(f.plots[0]), len(values))
	}
	const near = 4 // points: a mark of radius 2.5 reaches 3.5 at its corners
	for j, p := range f.plots[0] {
		rec.Actions = nil
		p.Draw(canvases[0][j])
		da := p.DataCanvas(canvases[0][j])
		x, y := p.Transforms(&da)
		var points []vg.Point
		for _, r := range rows {
			points = append(points, vg.Point{X: x(float64(r.Clients)), Y: y(values[j](r))})
		}
		at := func(q vg.Point) int { // the nearest point, if near
			best, d := -1, vg.Length(near)
			for i, pt := range points {
				if e := vg.Length(math.Hypot(float64(q.X-pt.X), float64(q.Y-pt.Y))); e <= d {
					best, d = i, e
				}
			}
			return best
		}
		marked := make([]bool, len(points))
		for _, a := range rec.Actions {
			var path vg.Path
			switch a := a.(type) {
			case *recorder.Stroke:
				path = a.Path
			case *recorder.Fill:
				path = a.Path
			default:
				continue
			}
			// A mark: an arc about the point, or a shape whose corners
			// are all within its radius.
			from, shape := -1, -2 // -2: no component yet; -1: not a mark
			for _, c := range path {
				if c.Type == vg.CloseComp {
					continue
				}
				i := at(c.Pos)
				if c.Type == vg.LineComp && from >= 0 && i >= 0 && i != from {
					t.Errorf("%s: a line from %d clients (%s) to %d (%s)", p.Title.Text, rows[from].Clients, rows[from].Strategy, rows[i].Clients, rows[i].Strategy)
				}
				from = i
				switch {
				case shape == -2:
					shape = i
				case shape != i:
					shape = -1
				}
			}
			if shape >= 0 {
				marked[shape] = true
			}
		}
		for i, m := range marked {
			if !m {
				t.Errorf("%s: no mark at %d clients of %s", p.Title.Text, rows[i].Clients, rows[i].Strategy)
			}
		}
	}
}
