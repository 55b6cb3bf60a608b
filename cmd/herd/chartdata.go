package main

import (
	"fmt"

	"github.com/herdsafe/backoff/herd"
)

// chartData is a row's load chart as the explorer page draws it: the
// same series as the PNG and SVG charts.
type chartData struct {
	// Kind is "outage", the load sent ÷ the base load against time over
	// the phases, or "fleet", the calls per window against time on a
	// logarithmic axis.
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
}

// chartOf returns r's load chart.
func chartOf(r row) chartData {
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
