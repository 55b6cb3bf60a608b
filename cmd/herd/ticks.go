package main

import (
	"math"
	"strconv"
	"time"

	"gonum.org/v1/plot"
)

// logTicks marks a logarithmic axis so that it reads at every range: it
// labels each decade's 1 when the range spans more than three decades,
// 1, 2 and 5 when it spans one to three, and 1 to 9 within one decade, and
// always labels two ticks at least. label formats a value.
type logTicks struct{ label func(float64) string }

func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) {
		return nil
	}
	decades := math.Log10(hi / lo)
	marked := func(m int) bool { return true }
	switch {
	case decades > 3:
		marked = func(m int) bool { return m == 1 }
	case decades >= 1:
		marked = func(m int) bool { return m == 1 || m == 2 || m == 5 }
	}
	ticks, n := t.ticks(lo, hi, marked)
	if n < 2 {
		ticks, n = t.ticks(lo, hi, func(int) bool { return true })
	}
	if n < 2 { // within one step of the mantissa: label the ends instead
		for i := range ticks {
			ticks[i].Label = ""
		}
		ticks = append(ticks, plot.Tick{Value: lo, Label: t.label(lo)}, plot.Tick{Value: hi, Label: t.label(hi)})
	}
	return ticks
}

// ticks returns a tick at every m×10ⁿ in [lo, hi], labelled where marked(m)
// says so, and how many are labelled.
func (t logTicks) ticks(lo, hi float64, marked func(m int) bool) ([]plot.Tick, int) {
	var ticks []plot.Tick
	labelled := 0
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi*1.0001; e++ {
		for m := 1; m < 10; m++ {
			v := float64(m) * math.Pow(10, e)
			if e < 0 {
				v = float64(m) / math.Pow(10, -e) // exact for m/10, m/100, …
			}
			if v < lo*0.9999 || v > hi*1.0001 {
				continue
			}
			tick := plot.Tick{Value: v}
			if marked(m) {
				tick.Label = t.label(v)
				labelled++
			}
			ticks = append(ticks, tick)
		}
	}
	return ticks, labelled
}

// timeLabel labels a value in seconds as a duration: 5ms, 200ms, 1s, 10s.
func timeLabel(v float64) string { return seconds(time.Duration(math.Round(v * float64(time.Second)))) }

// countLabel labels a count: 1, 20, 500, 10000; and 0.5 below 1.
func countLabel(v float64) string {
	if v >= 1 {
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// unlabelled keeps the ticks of a Ticker and drops their labels, for the
// time axis of a panel that shares the labels of the panel below it. (A
// label hidden by a transparent colour would still be written into an SVG
// file, as an invalid colour that other renderers draw in black.)
type unlabelled struct{ plot.Ticker }

func (u unlabelled) Ticks(lo, hi float64) []plot.Tick {
	ticks := u.Ticker.Ticks(lo, hi)
	for i := range ticks {
		ticks[i].Label = ""
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
