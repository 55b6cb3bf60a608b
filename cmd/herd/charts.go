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
	"time"

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
// time against the fleet size, into dir.
// It returns the paths written.
func writeCharts(dir, format string, rows []row) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, sc := range uniq(rows, func(r row) string { return r.Scenario }) {
		of := filter(rows, func(r row) bool { return r.Scenario == sc })
		for _, n := range uniq(of, func(r row) int { return r.Clients }) {
			panels := filter(of, func(r row) bool { return r.Clients == n })
			p := filepath.Join(dir, fmt.Sprintf("%s-timeline-%d.%s", sc, n, format))
			if err := save(p, format, timeline(sc, n, panels)); err != nil {
				return paths, err
			}
			paths = append(paths, p)
		}
		if len(uniq(of, func(r row) int { return r.Clients })) < 2 {
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
	dc := draw.New(c)
	if f.title != "" {
		dc = titled(dc, f.title)
	}
	rows, cols := len(f.plots), len(f.plots[0])
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(28), PadY: vg.Points(6),
		PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(6), PadRight: vg.Points(14)}
	canvases := plot.Align(f.plots, tiles, dc)
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

// titled writes a title across the top of dc and returns the canvas below.
func titled(dc draw.Canvas, title string) draw.Canvas {
	sty := draw.TextStyle{Color: color.Black, Font: plot.DefaultFont, Handler: plot.DefaultTextHandler,
		XAlign: draw.XCenter, YAlign: draw.YTop}
	sty.Font.Size = vg.Points(13)
	dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y - vg.Points(6)}, title)
	dc.Max.Y -= sty.Height(title) + vg.Points(12)
	return dc
}

// timeline is one panel per strategy: calls per window against time, on a
// shared logarithmic time axis, so that the early retries and the long
// tail both show.
func timeline(scenario string, clients int, rows []row) figure {
	var end, top float64
	for _, r := range rows {
		end = max(end, (time.Duration(len(r.timeline)) * r.window).Seconds())
		if len(r.timeline) > 0 {
			top = max(top, float64(slices.Max(r.timeline)))
		}
	}
	first := rows[0].window.Seconds()
	f := figure{w: 9 * vg.Inch, h: vg.Length(0.55+1.15*float64(len(rows))) * vg.Inch,
		title: fmt.Sprintf("%s, %d clients: calls reaching the server per %v window", describe(scenario), clients, rows[0].window)}
	for i, r := range rows {
		p := plot.New()
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, timeTicks{}
		p.X.Min, p.X.Max = first, max(end, 10*first)
		p.Y.Min, p.Y.Max = 0, max(top*1.08, 1)
		p.Y.Tick.Marker = integerTicks{}
		p.Add(plotter.NewGrid())
		p.Y.Label.Text = r.Strategy
		p.Y.Label.TextStyle.Font.Size = vg.Points(11)
		if i == len(rows)-1 {
			p.X.Label.Text = "time since the herd failed (log scale)"
		} else {
			p.X.Tick.Label.Color = color.Transparent
		}
		line, _ := plotter.NewLine(thin(r.timeline, r.window, maxPoints))
		line.Color = plotutil.Color(i)
		line.FillColor = fade(plotutil.Color(i))
		line.Width = vg.Points(0.8)
		p.Add(line)
		text := fmt.Sprintf("%s calls, all done in %s ", number(r.Calls), seconds(r.Completion))
		if r.Failed > 0 {
			text = fmt.Sprintf("%s calls, %s clients failed, last at %s ", number(r.Calls), number(r.Failed), seconds(r.Completion))
		}
		note, _ := plotter.NewLabels(plotter.XYLabels{
			XYs:    []plotter.XY{{X: p.X.Max, Y: p.Y.Max}},
			Labels: []string{text},
		})
		note.TextStyle[0].XAlign, note.TextStyle[0].YAlign = draw.XRight, draw.YTop
		note.TextStyle[0].Font.Size = vg.Points(10)
		p.Add(note)
		f.plots = append(f.plots, []*plot.Plot{p})
	}
	return f
}

// scaling plots calls and completion time against the fleet size, one line
// per strategy, both axes logarithmic.
func scaling(scenario string, rows []row) figure {
	calls, done := plot.New(), plot.New()
	calls.Title.Text, done.Title.Text = "calls (total work)", "time until all succeeded"
	calls.Y.Tick.Marker, done.Y.Tick.Marker = plot.LogTicks{Prec: -1}, timeTicks{}
	ns := uniq(rows, func(r row) int { return r.Clients })
	for _, p := range []*plot.Plot{calls, done} {
		p.X.Label.Text = "clients"
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		if ns[0] == ns[len(ns)-1] {
			p.X.Min, p.X.Max = float64(ns[0])/2, float64(ns[0])*2
		}
		p.Add(plotter.NewGrid())
		p.Legend.Top, p.Legend.Left = true, true
	}
	var callLines, doneLines []any
	for _, st := range uniq(rows, func(r row) string { return r.Strategy }) {
		var c, d plotter.XYs
		for _, r := range filter(rows, func(r row) bool { return r.Strategy == st }) {
			c = append(c, plotter.XY{X: float64(r.Clients), Y: max(r.Calls, 1)})
			d = append(d, plotter.XY{X: float64(r.Clients), Y: max(r.Seconds, 1e-3)})
		}
		callLines = append(callLines, st, c)
		doneLines = append(doneLines, st, d)
	}
	_ = plotutil.AddLinePoints(calls, callLines...)
	_ = plotutil.AddLinePoints(done, doneLines...)
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

// thin turns a load timeline into points at each window's end, keeping
// for every stretch of the log-scaled time axis the window with the most
// calls, so that no spike is lost.
func thin(load []int, window time.Duration, limit int) plotter.XYs {
	w := window.Seconds()
	pts := make(plotter.XYs, 0, min(len(load), limit)+1)
	if len(load) <= limit {
		for i, n := range load {
			pts = append(pts, plotter.XY{X: float64(i+1) * w, Y: float64(n)})
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
		pts = append(pts, plotter.XY{X: float64(best+1) * w, Y: float64(load[best])})
		i = j
	}
	return pts
}

// fade returns c at a quarter of its opacity, for filled areas.
func fade(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 70}
}

// timeTicks marks a logarithmic axis in seconds with durations: 10ms,
// 100ms, 1s, 10s, …
type timeTicks struct{}

func (timeTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi*1.0001; e++ {
		for m := 1.0; m < 10; m++ {
			v := m * math.Pow(10, e)
			if v < lo*0.9999 || v > hi*1.0001 {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 {
				t.Label = seconds(time.Duration(v * float64(time.Second)))
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// integerTicks marks a linear count axis at round whole numbers.
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1.0
	for (hi-lo)/step > 5 {
		switch {
		case strconv.FormatFloat(step, 'f', -1, 64)[0] == '2':
			step *= 2.5
		default:
			step *= 2
		}
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	return ticks
}

// seconds prints a duration compactly: 10ms, 1.5s, 100s, 292.66s.
func seconds(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return strconv.FormatFloat(d.Round(10*time.Millisecond).Seconds(), 'f', -1, 64) + "s"
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
