package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/herdsafe/backoff/herd"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// maxPoints bounds the points drawn per timeline, so that a long run gives
// a light SVG; the peaks survive the thinning.
const maxPoints = 1200

// writeCharts writes, for each scenario, a load timeline per fleet size
// and, given two fleet sizes or more, one chart of calls and completion
// time against the fleet size, into dir; for outage, an amplification
// timeline per fleet size, for overload its goodput, latency and limit
// timelines per fleet size, and for either nothing against it. It returns
// the paths written.
func writeCharts(dir, format string, rows []row) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, sc := range uniq(rows, func(r row) string { return r.Scenario }) {
		of := filter(rows, func(r row) bool { return r.Scenario == sc })
		for _, n := range uniq(of, func(r row) int { return r.Clients }) {
			panels := filter(of, func(r row) bool { return r.Clients == n })
			f := timeline(sc, n, panels)
			switch sc {
			case string(herd.Outage):
				f = amplification(n, panels)
			case string(herd.Overload):
				f = overloadChart(n, panels)
			}
			p := filepath.Join(dir, fmt.Sprintf("%s-timeline-%d.%s", sc, n, format))
			if err := save(p, format, f); err != nil {
				return paths, err
			}
			paths = append(paths, p)
		}
		if sc == string(herd.Outage) || sc == string(herd.Overload) || len(uniq(of, func(r row) int { return r.Clients })) < 2 {
			continue // one fleet size: nothing to plot against
		}
		p := filepath.Join(dir, fmt.Sprintf("%s-vs-clients.%s", sc, format))
		if err := save(p, format, scaling(sc, of)); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// figure is a grid of plots and its size.
type figure struct {
	plots [][]*plot.Plot
	w, h  vg.Length
	title string
}

// save draws f into a PNG or SVG file at path.
func save(path, format string, f figure) error {
	var c interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case "svg":
		c = vgsvg.New(f.w, f.h)
	default:
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(f.w, f.h), vgimg.UseDPI(110))}
	}
	canvases := place(f, draw.New(c))
	for i := range f.plots {
		for j, p := range f.plots[i] {
			p.Draw(canvases[i][j])
		}
	}
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(file); err != nil {
		file.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return file.Close()
}

// place writes f's title across the top of dc and returns the canvas of
// each of its plots, aligned so that their data areas line up.
func place(f figure, dc draw.Canvas) [][]draw.Canvas {
	if f.title != "" {
		dc = titled(dc, f.title)
	}
	rows, cols := len(f.plots), len(f.plots[0])
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(28), PadY: vg.Points(6),
		PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(6), PadRight: vg.Points(14)}
	return plot.Align(f.plots, tiles, dc)
}

// titled writes a title across the top of dc and returns the canvas below.
func titled(dc draw.Canvas, title string) draw.Canvas {
	sty := draw.TextStyle{Color: color.Black, Font: plot.DefaultFont, Handler: plot.DefaultTextHandler,
		XAlign: draw.XCenter, YAlign: draw.YTop}
	// 12 points leave room for a fallback font wider than Liberation, as a
	// browser without it uses to show an SVG file.
	sty.Font.Size = vg.Points(12)
	dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y - vg.Points(6)}, title)
	dc.Max.Y -= sty.Height(title) + vg.Points(12)
	return dc
}

// timeline is one panel per strategy: calls per window against time, on a
// shared logarithmic time axis, so that the early retries and the long
// tail both show. Each window's calls are drawn at the window's centre.
func timeline(scenario string, clients int, rows []row) figure {
	var end, top float64
	for _, r := range rows {
		end = max(end, (time.Duration(len(r.timeline)) * r.window).Seconds())
		if len(r.timeline) > 0 {
			top = max(top, float64(slices.Max(r.timeline)))
		}
	}
	first := rows[0].window.Seconds() / 2 // the centre of the first window
	f := figure{w: 9 * vg.Inch, h: vg.Length(0.55+1.35*float64(len(rows))) * vg.Inch,
		title: fmt.Sprintf("%s, %d clients: calls reaching the server per %v", describe(scenario), clients, rows[0].window)}
	for i, r := range rows {
		p := plot.New()
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{label: timeLabel}
		p.X.Min, p.X.Max = first, max(end, 10*first)
		p.Y.Min, p.Y.Max = 0, max(top*1.08, 1)
		p.Y.Tick.Marker = integerTicks{}
		p.Add(grid{Grid: plotter.NewGrid(), x: p.X.Tick.Marker})
		p.Y.Label.Text = r.Strategy
		p.Y.Label.TextStyle.Font.Size = vg.Points(11)
		if i == len(rows)-1 {
			p.X.Label.Text = "time since the herd failed (log scale)"
		} else {
			p.X.Tick.Marker = unlabelled{p.X.Tick.Marker}
		}
		// The summary goes above the panel, clear of the data.
		p.Title.Text = note(r)
		p.Title.TextStyle.Font.Size = vg.Points(10)
		p.Title.Padding = vg.Points(2)
		line, _ := plotter.NewLine(thin(r.timeline, r.window, maxPoints))
		line.Color = plotutil.Color(i)
		line.FillColor = fade(plotutil.Color(i))
		line.Width = vg.Points(0.8)
		p.Add(line)
		f.plots = append(f.plots, []*plot.Plot{p})
	}
	return f
}

// grid is a plotter.Grid whose vertical lines are at the labelled ticks of
// x, the time axis's own marker, rather than of the axis it is drawn on: a
// panel whose axis drops its labels (see unlabelled) keeps the lines.
type grid struct {
	*plotter.Grid
	x plot.Ticker
}

func (g grid) Plot(c draw.Canvas, p *plot.Plot) {
	q := *p
	q.X.Tick.Marker = g.x
	g.Grid.Plot(c, &q)
}

// scaling plots calls and the time of the last success against the fleet
// size, one line per strategy, both axes logarithmic. Zeros are drawn at
// the floor of each axis (1 call, 1 ms), and a range of one value is
// widened, so that degenerate data draws rather than crashes.
func scaling(scenario string, rows []row) figure {
	calls, done := plot.New(), plot.New()
	calls.Title.Text, done.Title.Text = "calls (total work)", "time until the last success"
	calls.Y.Tick.Marker, done.Y.Tick.Marker = logTicks{label: countLabel}, logTicks{label: timeLabel}
	for _, p := range []*plot.Plot{calls, done} {
		p.X.Label.Text = "clients"
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker = logTicks{label: countLabel}
		p.Add(plotter.NewGrid())
		p.Legend.Top, p.Legend.Left = true, true
	}
	// Points only, at the fleet sizes measured: a line between two of them
	// would claim what happens in between.
	var callPoints, donePoints []any
	for _, st := range uniq(rows, func(r row) string { return r.Strategy }) {
		var c, d plotter.XYs
		for _, r := range filter(rows, func(r row) bool { return r.Strategy == st }) {
			c = append(c, plotter.XY{X: float64(r.Clients), Y: max(r.Calls, 1)})
			d = append(d, plotter.XY{X: float64(r.Clients), Y: max(r.Seconds, 1e-3)})
		}
		callPoints = append(callPoints, st, c)
		donePoints = append(donePoints, st, d)
	}
	_ = plotutil.AddScatters(calls, callPoints...)
	_ = plotutil.AddScatters(done, donePoints...)
	for _, p := range []*plot.Plot{calls, done} {
		logRange(&p.X)
		logRange(&p.Y)
	}
	done.Legend.Top = false // the lines rise to the right: keep clear of them
	done.Legend.Left = false
	return figure{plots: [][]*plot.Plot{{calls, done}}, w: 10 * vg.Inch, h: 4.5 * vg.Inch,
		title: describe(scenario) + ": cost and duration against the size of the herd"}
}

// describe names a scenario for a chart title.
func describe(scenario string) string {
	switch scenario {
	case "occ":
		return "Optimistic concurrency (occ)"
	case "restart":
		return "Server restart (restart)"
	case "live":
		return "Live HTTP server restart"
	}
	return scenario
}

// thin turns a load timeline into points at each window's centre, keeping
// for every stretch of the log-scaled time axis the window with the most
// calls, so that no spike is lost.
func thin(load []int, window time.Duration, limit int) plotter.XYs {
	w := window.Seconds()
	pts := make(plotter.XYs, 0, min(len(load), limit)+1)
	if len(load) <= limit {
		for i, n := range load {
			pts = append(pts, plotter.XY{X: (float64(i) + 0.5) * w, Y: float64(n)})
		}
		return pts
	}
	span := math.Log(float64(len(load)))
	bin := func(i int) int { return int(math.Log(float64(i+1)) / span * float64(limit-1)) }
	for i := 0; i < len(load); {
		b, best := bin(i), i
		j := i
		for ; j < len(load) && bin(j) == b; j++ {
			if load[j] > load[best] {
				best = j
			}
		}
		pts = append(pts, plotter.XY{X: (float64(best) + 0.5) * w, Y: float64(load[best])})
		i = j
	}
	return pts
}

// fade returns c at a quarter of its opacity, for filled areas.
func fade(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 70}
}

// logRange makes a logarithmic axis drawable whatever the data: a range
// of one value is widened to a factor of 2 either side, and an axis with
// no positive data gets [0.5, 2]. Any other range gets a margin of 15%
// either side, so that no point sits on the frame and the labels reach
// past the data.
func logRange(a *plot.Axis) {
	switch {
	case math.IsInf(a.Min, 0) || math.IsInf(a.Max, 0) || !(a.Max > 0):
		a.Min, a.Max = 0.5, 2
	case !(a.Min > 0) || a.Min == a.Max:
		a.Min, a.Max = a.Max/2, a.Max*2
	default:
		a.Min, a.Max = a.Min/1.15, a.Max*1.15
	}
}

// note sums up a timeline panel: the calls, and when the last client
// succeeded, or how many failed.
func note(r row) string {
	switch {
	case r.Unfinished > 0 && r.Unfinished == r.Failed:
		return fmt.Sprintf("%s calls, %s clients still failing when cut off at %s",
			number(r.Calls), number(r.Unfinished), seconds(r.Completion))
	case r.Unfinished > 0:
		return fmt.Sprintf("%s calls, %s clients failed, %s of them still failing when cut off at %s",
			number(r.Calls), number(r.Failed), number(r.Unfinished), seconds(r.Completion))
	case r.Failed >= float64(r.Clients):
		return fmt.Sprintf("%s calls, every client gave up", number(r.Calls))
	case r.Failed > 0:
		return fmt.Sprintf("%s calls, %s clients gave up, the last success at %s", number(r.Calls), number(r.Failed), seconds(r.Completion))
	}
	return fmt.Sprintf("%s calls, all done in %s", number(r.Calls), seconds(r.Completion))
}

// seconds prints a duration compactly, without float noise: below a
// second to three significant digits (850µs, 5ms, 12.5ms, 465ms), from a
// second on to the hundredth (1.61s, 60.1s, 292.66s).
func seconds(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + seconds(-d)
	case d == 0:
		return "0s"
	}
	for _, u := range []struct {
		unit   time.Duration
		suffix string
	}{{time.Microsecond, "µs"}, {time.Millisecond, "ms"}} {
		step := u.unit // three significant digits
		switch {
		case d < 10*u.unit:
			step /= 100
		case d < 100*u.unit:
			step /= 10
		}
		if r := d.Round(step); r < 1000*u.unit {
			return trim(float64(r)/float64(u.unit), 2) + u.suffix
		}
	}
	return trim(d.Round(10*time.Millisecond).Seconds(), 2) + "s"
}

// trim formats v with prec decimals, then drops trailing zeros.
func trim(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// uniq returns the distinct keys of rows, in order of first appearance.
func uniq[K comparable](rows []row, key func(row) K) []K {
	var out []K
	for _, r := range rows {
		if k := key(r); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func filter(rows []row, keep func(row) bool) []row {
	var out []row
	for _, r := range rows {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}
