package main

import (
	"fmt"
	"io"
	"strings"
)

// mib is n bytes in MiB.
func mib(n uint64) float64 { return float64(n) / (1 << 20) }

// pct is n as a percentage of total.
func pct(n, total int64) float64 {
	if total == 0 {
		return 0
	}
	return 100 * float64(n) / float64(total)
}

// maxStacks bounds the stack groups the report prints.
const maxStacks = 10

// report writes res to w as text, and last the verdict: PASS, or FAIL
// with the reasons.
func report(w io.Writer, res *result) {
	cfg, c := res.cfg, res.counts
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("soak: mode %s, %d callers, %v, seed %d", cfg.mode, cfg.callers, cfg.duration, cfg.mix.seed)
	p("time: load %.1fs, drain %.1fs, close %.1fs; total %.1fs",
		res.load.Seconds(), res.drain.Seconds(), res.close.Seconds(), (res.load + res.drain + res.close).Seconds())

	s := res.server
	var kinds []string
	for k, n := range s.Kinds {
		kinds = append(kinds, fmt.Sprintf("%s %d", kind(k), n))
	}
	p("requests made: %d through the base transport; %d received by the server (%s; %d bodies trickled; %d lines logged by net/http)",
		res.made, s.Seen, strings.Join(kinds, ", "), s.Slow, s.Logged)

	var ends []string
	for e, n := range res.ends {
		ends = append(ends, fmt.Sprintf("%s %d", end(e), n))
	}
	p("requests through the base transport ended: %s", strings.Join(ends, ", "))
	if res.otherEnd != "" {
		p("  e.g. other error: %s", res.otherEnd)
	}
	p("calls: started %d, completed %d (%.1f%%), failed %d (%.1f%%)",
		c.Started, c.Completed, pct(c.Completed, c.Started), c.FailedTotal(), pct(c.FailedTotal(), c.Started))
	for i, n := range c.Failed {
		if n == 0 {
			continue
		}
		mark := ""
		if cause(i).broken() {
			mark = "  <- breaks a promise"
		}
		p("  %-30s %9d  %5.1f%%%s", cause(i).String(), n, pct(n, c.Started), mark)
	}
	verdict := "every call accounted for"
	if !c.Balanced() {
		verdict = fmt.Sprintf("MISMATCH: %d calls unaccounted for", c.InFlight())
	}
	p("accounting: started %d = completed %d + failed %d: %s", c.Started, c.Completed, c.FailedTotal(), verdict)
	p("attempts: %d calls whose *backoff.Error.Attempts differs from the attempts counted; %d over -max-tries %d",
		c.Mismatch, c.OverTries, cfg.maxTries)
	for _, f := range res.extraFigures {
		p("%s", f)
	}

	peak := 0
	for _, x := range res.samples {
		peak = max(peak, x.goroutines)
	}
	p("goroutines: before %d, peak %d (sampled), after %d", res.goroutinesBefore, peak, res.goroutinesAfter)
	heap(p, "heap in use", summarize(res.samples, res.load, func(x sample) uint64 { return x.inUse }), res.heapAfter.inUse, cfg)
	heap(p, "heap live", summarize(res.samples, res.load, func(x sample) uint64 { return x.live }), res.heapAfter.live, cfg)

	for _, line := range c.Samples {
		p("sample: %s", line)
	}
	stacks(p, "stuck at the end of the grace", res.stuck)
	stacks(p, "leaked", res.leaked)

	if f := res.failures(); len(f) > 0 {
		p("FAIL")
		for _, r := range f {
			p("  %s", r)
		}
		return
	}
	p("PASS")
}

// heap writes the lines of one heap series.
func heap(p func(string, ...any), name string, s series, after uint64, cfg config) {
	how := "after a GC at each sample"
	if !cfg.sampleGC {
		how = "as the runtime's last GC left it"
	}
	p("%s (%s, asked every %v, the largest gap %.1fs, the longest sample %.1fs): %.1f MiB before the load; steady load (%d samples after %d of warm-up, %d to %d calls in flight): min %.1f, max %.1f, last %.1f MiB, flat within %.1f MiB, slope %+.2f MiB/min; %.1f MiB drained, %.1f MiB closed",
		name, how, cfg.sample, s.MaxGap.Seconds(), s.MaxTook.Seconds(), mib(s.Before), s.N, s.WarmUp, s.MinInFlight, s.MaxInFlight,
		mib(s.Min), mib(s.Max), mib(s.Last), mib(s.Max-s.Min), s.SlopePerMin/(1<<20), mib(s.Drained), mib(after))
}

// stacks writes the largest groups of gs.
func stacks(p func(string, ...any), what string, gs []stackGroup) {
	if len(gs) == 0 {
		return
	}
	total := 0
	for _, g := range gs {
		total += g.count
	}
	p("goroutines %s: %d, in %d stacks", what, total, len(gs))
	for i, g := range gs {
		if i == maxStacks {
			p("  ... %d more stacks", len(gs)-maxStacks)
			break
		}
		p("  %d × [%s]:", g.count, g.state)
		for _, l := range strings.Split(g.stack, "\n") {
			p("    %s", l)
		}
	}
}
