package main

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"time"

	"github.com/herdsafe/backoff/herd"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// overloadShade is the shade of the stages in which the load is above
// the capacity.
var overloadShade = color.Gray{Y: 232}

// overloadChart is the overload chart of a fleet size: a row per
// strategy, and in each, against time over the shaded stages of overload,
// three panels: the goodput (the calls answered in time per bin,
// relative to the full capacity, over the stage's capacity dashed), the
// 99th percentile of the latency relative to the no-load latency (2×
// dashed, the target), and the fleet's limit (over the concurrency with
// which the server runs full without a queue, dashed).
func overloadChart(clients int, rows []row) figure {
	r0 := rows[0]
	end := overloadEnd(r0)
	f := figure{w: 12 * vg.Inch, h: vg.Length(0.7+1.5*float64(len(rows))) * vg.Inch,
		title: fmt.Sprintf("Overload (overload), %d clients, a server of %s calls/s, no-load latency %s: per %s, against time",
			clients, number(math.Round(r0.capacity)), seconds(r0.noLoad), seconds(r0.bin))}
	latencyTop, limitTop := overloadTops(rows)
	ticks := linearTimeTicks{}
	for i, r := range rows {
		last := i == len(rows)-1
		panels := []*plot.Plot{goodputPanel(r, end), latencyPanel(r, end, latencyTop), limitPanel(r, end, limitTop)}
		for j, p := range panels {
			p.X.Min, p.X.Max = 0, end.Seconds()
			p.X.Tick.Marker = ticks
			if !last {
				p.X.Tick.Marker = unlabelled{ticks}
			}
			p.Title.TextStyle.Font.Size = vg.Points(10)
			p.Title.Padding = vg.Points(2)
			if last {
				p.X.Label.Text = "time (grey: load above capacity)"
			}
			if j == 0 {
				p.Y.Label.Text = r.Strategy
				p.Y.Label.TextStyle.Font.Size = vg.Points(11)
			}
		}
		panels[0].Title.Text = overloadNote(r)
		panels[1].Title.Text, panels[2].Title.Text = " ", " "
		if i == 0 {
			panels[1].Title.Text = "p99 latency ÷ no-load latency (dashed: 2×)"
			panels[2].Title.Text = "fleet's limit (dashed: capacity × no-load latency)"
		}
		f.plots = append(f.plots, panels)
	}
	return f
}

// overloadEnd is when the last stage of r ends.
func overloadEnd(r row) time.Duration {
	var end time.Duration
	for _, st := range r.stages {
		end += st.Duration
	}
	return end
}

// overloadTops are the tops of the Y axes of the latency and the limit
// panels of rows: room above the highest p99 (3× at least) and the highest
// limit or concurrency of a full server.
func overloadTops(rows []row) (latency, limit float64) {
	latency, limit = 3, 1
	for _, r := range rows {
		for _, d := range r.p99 {
			latency = max(latency, ratioOf(d, r.noLoad))
		}
		limit = max(limit, float64(slicesMax(r.limit)), r.capacity*r.noLoad.Seconds())
	}
	return latency * 1.3, limit * 1.15
}

// ratioOf is d relative to base, 0 for a base that is not positive.
func ratioOf(d, base time.Duration) float64 {
	if base <= 0 {
		return 0
	}
	return float64(d) / float64(base)
}

// overloadNote sums up a strategy's row of panels, over its goodput
// panel: the goodput and the latency of the measured stages.
func overloadNote(r row) string {
	return fmt.Sprintf("goodput ÷ capacity: %s; p50 %s×, p99 %s×", ratio(r.Goodput),
		strconv.FormatFloat(r.P50X, 'f', 2, 64), strconv.FormatFloat(r.P99X, 'f', 2, 64))
}

// stageBands shades the stages whose load is above their capacity, from
// the bottom to the top of p's Y axis, and returns them with a dashed line
// of value(stage) per stage, if value is not nil.
func stageBands(r row, p *plot.Plot, value func(st herd.Stage) float64) []plot.Plotter {
	bottom, top := p.Y.Min, p.Y.Max
	var out []plot.Plotter
	var line plotter.XYs
	at := time.Duration(0)
	for _, st := range r.stages {
		lo, hi := at.Seconds(), (at + st.Duration).Seconds()
		at += st.Duration
		if st.Load > st.Capacity {
			if poly, err := plotter.NewPolygon(plotter.XYs{{X: lo, Y: bottom}, {X: hi, Y: bottom}, {X: hi, Y: top}, {X: lo, Y: top}}); err == nil {
				poly.Color = overloadShade
				poly.LineStyle.Width = 0
				out = append(out, poly)
			}
		}
		if value != nil {
			v := value(st)
			line = append(line, plotter.XY{X: lo, Y: v}, plotter.XY{X: hi, Y: v})
		}
	}
	out = append(out, grid{Grid: plotter.NewGrid(), x: linearTimeTicks{}})
	if len(line) > 0 {
		l, _ := plotter.NewLine(line)
		l.Color = color.Gray{Y: 90}
		l.Width = vg.Points(0.6)
		l.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		out = append(out, l)
	}
	return out
}

// goodputPanel draws the calls answered in time per bin, over the full
// capacity.
func goodputPanel(r row, end time.Duration) *plot.Plot {
	p := plot.New()
	p.Y.Min, p.Y.Max = 0, 1.15
	p.Add(stageBands(r, p, goodputGuide)...)
	addSeries(p, goodputPoints(r, end), 0)
	return p
}

// goodputGuide is the goodput panel's dashed line in stage s: its
// capacity.
func goodputGuide(s herd.Stage) float64 { return s.Capacity }

// goodputPoints are the calls answered in time per bin up to end, over
// the full capacity.
func goodputPoints(r row, end time.Duration) plotter.XYs {
	per := max(1, int(r.bin/r.window))
	var pts plotter.XYs
	full := r.capacity * (time.Duration(per) * r.window).Seconds()
	for from := 0; from < int(end/r.window); from += per {
		sum := 0
		for i := from; i < from+per && i < len(r.succeeded); i++ {
			sum += r.succeeded[i]
		}
		pts = append(pts, plotter.XY{X: (float64(from) + float64(per)/2) * r.window.Seconds(), Y: float64(sum) / full})
	}
	return pts
}

// latencyPanel draws the 99th percentile of the latency per bin, over the
// no-load latency, on a logarithmic axis up to top.
func latencyPanel(r row, end time.Duration, top float64) *plot.Plot {
	p := plot.New()
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{label: countLabel}
	p.Y.Min, p.Y.Max = latencyBottom, top
	p.Add(stageBands(r, p, latencyGuide)...)
	addSeries(p, latencyPoints(r, end), 1)
	return p
}

// latencyBottom is the bottom of the latency panel's axis.
const latencyBottom = 0.8

// latencyGuide is the latency panel's dashed line: the target, 2×.
func latencyGuide(herd.Stage) float64 { return 2 }

// latencyPoints are the 99th percentile of the latency of each bin that
// had calls, up to end, over the no-load latency, no lower than
// latencyBottom.
func latencyPoints(r row, end time.Duration) plotter.XYs {
	var pts plotter.XYs
	for i, d := range r.p99 {
		if x := (float64(i) + 0.5) * r.bin.Seconds(); d > 0 && x <= end.Seconds() {
			pts = append(pts, plotter.XY{X: x, Y: max(ratioOf(d, r.noLoad), latencyBottom)})
		}
	}
	return pts
}

// limitPanel draws the fleet's limit per window, up to top, over the
// concurrency of a server running full without a queue.
func limitPanel(r row, end time.Duration, top float64) *plot.Plot {
	p := plot.New()
	p.Y.Min, p.Y.Max = 0, top
	p.Y.Tick.Marker = integerTicks{}
	p.Add(stageBands(r, p, limitGuide(r))...)
	addSeries(p, limitPoints(r, end), 2)
	return p
}

// limitGuide is the limit panel's dashed line: the calls in flight with
// which the server, at the stage's capacity, runs full without a queue.
func limitGuide(r row) func(herd.Stage) float64 {
	return func(s herd.Stage) float64 { return s.Capacity * r.capacity * r.noLoad.Seconds() }
}

// limitPoints are the fleet's limit per window up to end: every window
// for an adaptive fleet, those with a limit for the others.
func limitPoints(r row, end time.Duration) plotter.XYs {
	var pts plotter.XYs
	for i, n := range r.limit {
		if x := (float64(i) + 0.5) * r.window.Seconds(); x <= end.Seconds() && (n > 0 || r.Adaptive) {
			pts = append(pts, plotter.XY{X: x, Y: float64(n)})
		}
	}
	return pts
}

// addSeries draws pts as a line of the palette's colour i.
func addSeries(p *plot.Plot, pts plotter.XYs, i int) {
	if len(pts) == 0 {
		return
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return
	}
	line.Color = plotutil.Color(i)
	line.Width = vg.Points(0.9)
	p.Add(line)
}

// slicesMax is the largest of s, 0 if it is empty.
func slicesMax(s []int) int {
	m := 0
	for _, v := range s {
		m = max(m, v)
	}
	return m
}
