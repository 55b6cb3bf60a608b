package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/herdsafe/backoff/herd"
)

// layersScenario is the name of the layers scenario, which runs on its own
// flags (see runLayers) rather than with the fleet scenarios.
const layersScenario = "layers"

// isLayers reports whether args ask for the layers scenario: -scenario
// layers, alone.
func isLayers(args []string) bool {
	for i, a := range args {
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == "scenario="+layersScenario || a == "scenario" && i+1 < len(args) && args[i+1] == layersScenario {
			return true
		}
	}
	return false
}

// runLayers runs the layers scenario (herd.Layers): a chain of tiers, each
// retrying the one below, over a dependency that fails, and prints per
// strategy the calls the dependency received per user call in each phase
// and the time to recover. It returns the exit code.
func runLayers(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("herd -scenario layers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg herd.LayersConfig
	fs.String("scenario", layersScenario, "the layers scenario")
	tries := fs.Uint("tries", 3, "attempts of each tier's retry stage")
	fs.IntVar(&cfg.Tiers, "tiers", 3, "retrying tiers above the dependency")
	fs.IntVar(&cfg.Rate, "rate", 100, "user calls a second")
	fs.DurationVar(&cfg.Warmup, "warmup", 10*time.Second, "how long the dependency is healthy first")
	fs.DurationVar(&cfg.Down, "down", 30*time.Second, "how long the dependency is down")
	fs.DurationVar(&cfg.Healthy, "healthy", 30*time.Second, "how long it is healthy after")
	fs.Float64Var(&cfg.Capacity, "capacity", 2, "each server's calls a second, as a multiple of -rate (strategy shed)")
	strategies := fs.String("strategies", strings.Join(herd.LayersStrategies(), ","), "comma-separated strategies: "+strings.Join(herd.LayersStrategies(), ", "))
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: herd -scenario layers [flags]")
		fmt.Fprintln(stderr, "\nA chain of -tiers services, each retrying the one below -tries times, over a dependency")
		fmt.Fprintln(stderr, "that is down for -down: the calls it receives per user call in each phase (the")
		fmt.Fprintln(stderr, "amplification), and how long after it came back the chain was healthy again.")
		fmt.Fprintln(stderr, "Strategies: retry (every tier retries), signal (a tier whose retries are spent says")
		fmt.Fprintln(stderr, "do not retry), budget (a token bucket per tier), shed (servers shed retries first).")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "herd: -scenario layers takes no argument: %q\n", fs.Args())
		return 2
	}
	if *tries == 0 {
		fmt.Fprintln(stderr, "herd: -tries must be at least 1")
		return 2
	}
	cfg.Tries = *tries
	names := strings.Split(*strategies, ",")
	for _, n := range names {
		if !slices.Contains(herd.LayersStrategies(), n) {
			fmt.Fprintf(stderr, "herd: -strategies: %q is not a strategy of the layers scenario; use %s\n", n, strings.Join(herd.LayersStrategies(), ", "))
			return 2
		}
	}
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "scenario\tstrategy\ttiers\ttries\twarmup_x\tdown_x\thealthy_x\tdown_failed_pct\trecovery_s\t")
	for _, n := range names {
		res, err := herd.Layers(cfg, n)
		if err != nil {
			report(stderr, err)
			return 2
		}
		p := res.Phases
		recovery := "-"
		if res.Recovery >= 0 {
			recovery = fmt.Sprintf("%.2f", res.Recovery.Seconds())
		}
		failed := 0.0
		if p[1].UserCalls > 0 {
			failed = 100 * float64(p[1].Failed) / float64(p[1].UserCalls)
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.1f\t%s\t\n", layersScenario, n, cfg.Tiers, cfg.Tries,
			p[0].Amplification(), p[1].Amplification(), p[2].Amplification(), failed, recovery)
	}
	return map[bool]int{true: 0, false: 1}[w.Flush() == nil]
}
