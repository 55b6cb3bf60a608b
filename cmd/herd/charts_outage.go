package main

import (
	"fmt"
	"image/color"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/herdsafe/backoff/herd"
)

// maxBins bounds the points drawn per amplification timeline: a run of
// minutes has tens of thousands of windows.
const maxBins = 1200

// Shades of the phases on the amplification charts: grey while the
// dependency is down, a lighter grey while it is degraded.
var (
	downShade     = color.Gray{Y: 215}
	degradedShade = color.Gray{Y: 238}
)

// amplification is the outage chart of a fleet size: one panel per
// strategy, the load the fleet sent relative to its base load against
// time, on a linear time axis shared by the panels, over the shaded
// phases, with the base load marked at 1.
func amplification(clients int, rows []row) figure {
	r0 := rows[0]
	bounds := phaseBounds(r0.phases)
	end := bounds[herd.NumPhases].Seconds()
	bin := binWidth(r0.window, bounds[herd.NumPhases])
	series := make([]plotter.XYs, len(rows))
	peaks := make([]plotter.XYs, len(rows))
	top := 1.2
	for i, r := range rows {
		series[i] = meanBins(r.timeline, r.window, bin, bounds[herd.NumPhases], r.base)
		peaks[i] = peakBins(r.timeline, r.window, bin, bounds[herd.NumPhases], r.base)
		for _, p := range peaks[i] {
			top = max(top, p.Y)
		}
	}
	f := figure{w: 9 * vg.Inch, h: vg.Length(0.55+1.35*float64(len(rows))) * vg.Inch,
		title: fmt.Sprintf("Dependency outage (outage), %d clients: calls sent ÷ the base load of %s per %v; line: the mean per %v, band: its busiest %v",
			clients, number(r0.base), r0.window, seconds(bin), r0.window)}
	ticks := linearTimeTicks{}
	for i, r := range rows {
		p := plot.New()
		p.X.Min, p.X.Max = 0, end
		p.Y.Min, p.Y.Max = 0, top*1.08
		p.X.Tick.Marker = ticks
		p.Add(phaseBands(bounds, p.Y.Max)...)
		p.Add(grid{Grid: plotter.NewGrid(), x: ticks})
		p.Y.Label.Text = r.Strategy
		p.Y.Label.TextStyle.Font.Size = vg.Points(11)
		if i == len(rows)-1 {
			p.X.Label.Text = "time since the start of the run (grey: the dependency down; light grey: degraded)"
		} else {
			p.X.Tick.Marker = unlabelled{ticks}
		}
		p.Title.Text = outageNote(r)
		p.Title.TextStyle.Font.Size = vg.Points(10)
		p.Title.Padding = vg.Points(2)
		baseLine, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 1}, {X: end, Y: 1}})
		baseLine.Color = color.Gray{Y: 90}
		baseLine.Width = vg.Points(0.6)
		baseLine.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		band, _ := plotter.NewLine(peaks[i])
		band.Color = fade(plotutil.Color(i))
		band.FillColor = fade(plotutil.Color(i))
		band.Width = vg.Points(0.4)
		line, _ := plotter.NewLine(series[i])
		line.Color = plotutil.Color(i)
		line.Width = vg.Points(0.9)
		p.Add(band, line, baseLine)
		f.plots = append(f.plots, []*plot.Plot{p})
	}
	return f
}

// phaseBounds returns when each phase starts, and when the last ends.
func phaseBounds(p herd.Phases) (b [herd.NumPhases + 1]time.Duration) {
	for i, d := range []time.Duration{p.Warmup, p.Down, p.Degraded, p.Healthy} {
		b[i+1] = b[i] + d
	}
	return b
}

// binWidth is the width of the bins a timeline of windows up to end is
// averaged over: a whole number of windows, so that there are at most
// maxBins of them.
func binWidth(window, end time.Duration) time.Duration {
	n := max(1, int(math.Ceil(float64(end/window)/maxBins)))
	return time.Duration(n) * window
}

// meanBins averages the load of the windows of each bin of width bin up
// to end, divided by base, and places it at the bin's centre. Windows past
// the end of load hold 0; a base of 0 draws nothing.
func meanBins(load []int, window, bin, end time.Duration, base float64) plotter.XYs {
	return bins(load, window, bin, end, base, func(windows []int, n int) float64 {
		sum := 0
		for _, v := range windows {
			sum += v
		}
		return float64(sum) / float64(n)
	})
}

// peakBins is meanBins with the busiest window of each bin in place of
// their mean: the series that shows what outage_peak_x says.
func peakBins(load []int, window, bin, end time.Duration, base float64) plotter.XYs {
	return bins(load, window, bin, end, base, func(windows []int, _ int) float64 {
		top := 0
		for _, v := range windows {
			top = max(top, v)
		}
		return float64(top)
	})
}

// bins places, at the centre of each bin of width bin up to end, the load
// of reads from its windows, divided by base. of is given the part of load
// in the bin (windows past the end of load hold 0, and are left out) and
// how many windows the bin spans. A base of 0 draws nothing.
func bins(load []int, window, bin, end time.Duration, base float64, of func(windows []int, n int) float64) plotter.XYs {
	per := int(bin / window)
	windows := int(end / window)
	pts := make(plotter.XYs, 0, windows/per+1)
	if base <= 0 {
		return pts
	}
	for from := 0; from < windows; from += per {
		to := min(from+per, windows)
		in := load[min(from, len(load)):min(to, len(load))]
		x := (float64(from+to) / 2) * window.Seconds()
		pts = append(pts, plotter.XY{X: x, Y: of(in, to-from) / base})
	}
	return pts
}

// phaseBands shades the down and degraded phases, to height top.
func phaseBands(b [herd.NumPhases + 1]time.Duration, top float64) []plot.Plotter {
	var out []plot.Plotter
	for _, band := range []struct {
		phase herd.Phase
		shade color.Color
	}{{herd.PhaseDown, downShade}, {herd.PhaseDegraded, degradedShade}} {
		lo, hi := b[band.phase].Seconds(), b[band.phase+1].Seconds()
		if hi <= lo {
			continue
		}
		poly, err := plotter.NewPolygon(plotter.XYs{{X: lo, Y: 0}, {X: hi, Y: 0}, {X: hi, Y: top}, {X: lo, Y: top}})
		if err != nil {
			continue
		}
		poly.Color = band.shade
		poly.LineStyle.Width = 0
		out = append(out, poly)
	}
	return out
}

// outageNote sums up an amplification panel: the load while down and
// degraded, the recovery, and the user calls that failed.
func outageNote(r row) string {
	back := fmt.Sprintf("back to normal %s into the healthy phase", seconds(r.Recovery))
	if !r.Recovered {
		back = fmt.Sprintf("not back to normal %s into it", seconds(r.Recovery))
	}
	failed := 0.0
	if r.UserCalls > 0 {
		failed = 100 * r.UserFailed / r.UserCalls
	}
	return fmt.Sprintf("%.3g× the base load while down (busiest 10 ms %.3g×), %.3g× degraded; %s; %.1f%% of the user calls failed",
		r.DownX, r.DownPeakX, r.DegradedX, back, failed)
}

// linearTimeTicks marks a linear time axis in seconds at round steps of
// 1, 2, 5, 10, 15, 30 or 60 seconds (or their tenths), five to ten of
// them, labelled as durations.
type linearTimeTicks struct{}

func (linearTimeTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	step := 0.1
	for _, s := range []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600} {
		step = s
		if (hi-lo)/s <= 10 {
			break
		}
	}
	for (hi-lo)/step > 10 {
		step *= 2
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo / step); i*step <= hi*(1+1e-9); i++ {
		v := i * step
		ticks = append(ticks, plot.Tick{Value: v, Label: timeLabel(v)})
	}
	return ticks
}
