package main

import (
	"fmt"
	"math"
	"time"

	"github.com/herdsafe/backoff/herd"
	"gonum.org/v1/plot/plotter"
)

// chartData is a row's chart as the explorer page draws it: the same
// series as the PNG and SVG charts.
type chartData struct {
	// Kind is "outage", the load sent ÷ the base load against time over
	// the phases, "fleet", the calls per window against time on a
	// logarithmic axis, or "overload", the panels of the overload chart
	// against time over its stages.
	Kind  string `json:"kind"`
	Title string `json:"title"`
	// X is the time of each point, in seconds. For outage, Mean is the
	// mean of the windows of each bin and Peak the busiest of them, both
	// ÷ the base load; for fleet, Mean is the calls of the busiest window
	// of each stretch of the axis (every window, for a short run).
	X    []float64 `json:"x"`
	Mean []float64 `json:"mean"`
	Peak []float64 `json:"peak,omitempty"`
	// Phases are when the outage's phases start, and when they end, in
	// seconds.
	Phases []float64 `json:"phases,omitempty"`
	// Bin is the width of a point, in seconds; Window that of a window.
	Bin    float64 `json:"bin"`
	Window float64 `json:"window"`
	// Panels are overload's, top to bottom: the goodput, the p99 latency
	// and the fleet's limit; Stages its stages.
	Panels []chartPanel `json:"panels,omitempty"`
	Stages []chartStage `json:"stages,omitempty"`
}

// chartPanel is one panel of the overload chart: a series against time,
// on an axis from Min to Max (logarithmic if Log), over a dashed line of
// the value Guide gives each stage.
type chartPanel struct {
	Name  string    `json:"name"`
	Title string    `json:"title"`
	X     []float64 `json:"x"`
	Y     []float64 `json:"y"`
	Guide []float64 `json:"guide"`
	Min   float64   `json:"min"`
	Max   float64   `json:"max"`
	Log   bool      `json:"log,omitempty"`
}

// chartStage is a stage of the overload scenario, from Start to End in
// seconds; Over says its load is above its capacity (the chart shades it).
type chartStage struct {
	Name  string  `json:"name"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Over  bool    `json:"over"`
}

// chartOf returns r's chart.
func chartOf(r row) chartData {
	if r.isOverload() {
		return overloadChartOf(r)
	}
	if !r.isOutage() {
		pts := thin(r.timeline, r.window, maxPoints)
		c := chartData{Kind: "fleet", Window: r.window.Seconds(), Bin: r.window.Seconds(),
			Title: fmt.Sprintf("%s, %d clients, %s: calls reaching the server per %v; %s", describe(r.Scenario), r.Clients, r.Strategy, r.window, note(r))}
		for _, p := range pts {
			c.X, c.Mean = append(c.X, p.X), append(c.Mean, p.Y)
		}
		return c
	}
	b := phaseBounds(r.phases)
	bin := binWidth(r.window, b[herd.NumPhases])
	mean := meanBins(r.timeline, r.window, bin, b[herd.NumPhases], r.base)
	peak := peakBins(r.timeline, r.window, bin, b[herd.NumPhases], r.base)
	c := chartData{Kind: "outage", Window: r.window.Seconds(), Bin: bin.Seconds(),
		Title: fmt.Sprintf("Dependency outage, %d clients, %s: calls sent ÷ the base load of %s per %v; line: the mean per %v, band: its busiest %v",
			r.Clients, r.Strategy, number(r.base), r.window, seconds(bin), r.window)}
	for i := range mean {
		c.X = append(c.X, mean[i].X)
		c.Mean = append(c.Mean, mean[i].Y)
		c.Peak = append(c.Peak, peak[i].Y)
	}
	for _, t := range b {
		c.Phases = append(c.Phases, t.Seconds())
	}
	return c
}

// overloadChartOf returns the overload chart of r: its row of panels of
// overloadChart.
func overloadChartOf(r row) chartData {
	end := overloadEnd(r)
	latencyTop, limitTop := overloadTops([]row{r})
	c := chartData{Kind: "overload", Window: r.window.Seconds(), Bin: r.bin.Seconds(),
		Title: fmt.Sprintf("Overload, %d clients, %s: a server of %s calls/s, no-load latency %s; against time",
			r.Clients, r.Strategy, number(math.Round(r.capacity)), seconds(r.noLoad))}
	panel := func(name, title string, pts plotter.XYs, guide func(herd.Stage) float64, lo, hi float64) chartPanel {
		p := chartPanel{Name: name, Title: title, Min: lo, Max: hi, X: []float64{}, Y: []float64{}} // [] in JSON, not null, when there are no points
		for _, pt := range pts {
			p.X, p.Y = append(p.X, pt.X), append(p.Y, pt.Y)
		}
		for _, st := range r.stages {
			p.Guide = append(p.Guide, guide(st))
		}
		return p
	}
	c.Panels = []chartPanel{
		panel("goodput", fmt.Sprintf("calls answered in time per %s ÷ the full capacity (dashed: the stage's capacity)", seconds(r.bin)),
			goodputPoints(r, end), goodputGuide, 0, 1.15),
		panel("p99", fmt.Sprintf("p99 latency per %s ÷ no-load latency (dashed: 2×)", seconds(r.bin)),
			latencyPoints(r, end), latencyGuide, latencyBottom, latencyTop),
		panel("limit", fmt.Sprintf("fleet's limit per %s (dashed: capacity × no-load latency)", seconds(r.window)),
			limitPoints(r, end), limitGuide(r), 0, limitTop),
	}
	c.Panels[1].Log = true
	at := time.Duration(0)
	for _, st := range r.stages {
		c.Stages = append(c.Stages, chartStage{Name: st.Name, Start: at.Seconds(), End: (at + st.Duration).Seconds(), Over: st.Load > st.Capacity})
		at += st.Duration
	}
	return c
}
