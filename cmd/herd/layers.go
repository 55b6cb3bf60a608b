package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
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

// layersOptions are the options of a run of the layers scenario.
type layersOptions struct {
	cfg        herd.LayersConfig
	strategies []string
	format     string
}

// layersColumns are the columns of the layers table, its CSV file and
// its JSON objects, in order.
var layersColumns = []string{"scenario", "strategy", "tiers", "tries", "warmup_x", "down_x", "healthy_x", "down_failed_pct", "recovery_s"}

// layersHeaders are the layers table's columns in words, for the page.
var layersHeaders = map[string]string{
	"tiers":           "tiers",
	"tries":           "tries per tier",
	"warmup_x":        "bottom calls per user call, healthy",
	"down_x":          "bottom calls per user call, down",
	"healthy_x":       "bottom calls per user call, back",
	"down_failed_pct": "user calls failed while down (%)",
	"recovery_s":      "healthy again after (s)",
}

// layersFlagSet defines the layers scenario's flags on a new flag set,
// into o; tries receives -tries.
func layersFlagSet(o *layersOptions, tries *uint, strategies *string) *flag.FlagSet {
	fs := flag.NewFlagSet("herd -scenario layers", flag.ContinueOnError)
	fs.String("scenario", layersScenario, "the layers scenario")
	fs.UintVar(tries, "tries", 3, "attempts of each tier's retry stage")
	fs.IntVar(&o.cfg.Tiers, "tiers", 3, "retrying tiers above the dependency")
	fs.IntVar(&o.cfg.Rate, "rate", 100, "user calls a second")
	fs.DurationVar(&o.cfg.Warmup, "warmup", 10*time.Second, "how long the dependency is healthy first")
	fs.DurationVar(&o.cfg.Down, "down", 30*time.Second, "how long the dependency is down")
	fs.DurationVar(&o.cfg.Healthy, "healthy", 30*time.Second, "how long it is healthy after")
	fs.Float64Var(&o.cfg.Capacity, "capacity", 2, "each server's calls a second, as a multiple of -rate (strategy shed)")
	fs.StringVar(strategies, "strategies", strings.Join(herd.LayersStrategies(), ","), "comma-separated strategies: "+strings.Join(herd.LayersStrategies(), ", "))
	fs.StringVar(&o.format, "format", "table", "output format: "+strings.Join(formats, ", "))
	return fs
}

// layersFlags is the layers scenario's flag set with its defaults, to
// look flags up.
func layersFlags() *flag.FlagSet {
	var (
		o          layersOptions
		tries      uint
		strategies string
	)
	return layersFlagSet(&o, &tries, &strategies)
}

// parseLayers reads the layers scenario's flags. An error is a
// *usageError naming the flag it is about, or flag.ErrHelp. A setting
// that herd.LayersConfig would take for "the default" (0) is refused,
// not replaced.
func parseLayers(args []string, stderr io.Writer) (*layersOptions, error) {
	o := &layersOptions{}
	var (
		tries      uint
		strategies string
	)
	fs := layersFlagSet(o, &tries, &strategies)
	var flagOut strings.Builder
	fs.SetOutput(&flagOut)
	defer func() { io.WriteString(stderr, clipFlagOutput(flagOut.String())) }()
	fs.Usage = func() {
		stderr := fs.Output()
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
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, &usageError{msg: clipLine(err.Error()), printed: true} // the flag package printed it
	}
	c := o.cfg
	switch {
	case fs.NArg() > 0:
		return nil, usagef("-scenario layers takes no argument: %q", clip(fs.Arg(0)))
	case tries == 0:
		return nil, usagef("-tries must be at least 1")
	case c.Tiers < 1:
		return nil, usagef("-tiers is %d; it must be at least 1", c.Tiers)
	case c.Rate < 1:
		return nil, usagef("-rate is %d; it must be at least 1 user call a second", c.Rate)
	case !(c.Capacity > 0) || math.IsInf(c.Capacity, 0):
		return nil, usagef("-capacity is %v; it must be above 0 and finite", c.Capacity)
	case c.Warmup < 0:
		return nil, usagef("-warmup is %v; it must not be negative", c.Warmup)
	case c.Down < 0:
		return nil, usagef("-down is %v; it must not be negative", c.Down)
	case c.Healthy < 0:
		return nil, usagef("-healthy is %v; it must not be negative", c.Healthy)
	case c.Warmup > time.Hour || c.Down > time.Hour || c.Healthy > time.Hour: // and their sum cannot wrap
		return nil, usagef("-healthy: -warmup, -down and -healthy last an hour at most together")
	case c.Warmup+c.Down+c.Healthy == 0:
		return nil, usagef("-healthy: -warmup, -down and -healthy are all 0: nothing to run")
	case c.Warmup+c.Down+c.Healthy > time.Hour:
		return nil, usagef("-healthy: -warmup, -down and -healthy last %v together; an hour at most", c.Warmup+c.Down+c.Healthy)
	case !slices.Contains(formats, o.format):
		return nil, usagef("-format %q is not one of %s", clip(o.format), strings.Join(formats, ", "))
	}
	o.cfg.Tries = tries
	for _, n := range strings.Split(strategies, ",") {
		n = strings.TrimSpace(n)
		if !slices.Contains(herd.LayersStrategies(), n) {
			return nil, usagef("-strategies: %q is not a strategy of the layers scenario; use %s", clip(n), strings.Join(herd.LayersStrategies(), ", "))
		}
		if !slices.Contains(o.strategies, n) {
			o.strategies = append(o.strategies, n)
		}
	}
	return o, nil
}

// layersRow is a row of the layers table: what herd.Layers measured for
// one strategy. Recovery is nil if the chain was not healthy again by the
// end of the run.
type layersRow struct {
	Strategy      string
	Tiers         int
	Tries         uint
	WarmupX       float64
	DownX         float64
	HealthyX      float64
	DownFailedPct float64
	Recovery      *float64
}

// layersRows runs each strategy of o, one after the other, and stops
// before the next when ctx is done.
func layersRows(ctx context.Context, o *layersOptions) ([]layersRow, error) {
	var rows []layersRow
	for _, n := range o.strategies {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, err := herd.Layers(o.cfg, n)
		if err != nil {
			return nil, layersError(err)
		}
		p := res.Phases
		r := layersRow{Strategy: n, Tiers: o.cfg.Tiers, Tries: o.cfg.Tries,
			WarmupX: p[0].Amplification(), DownX: p[1].Amplification(), HealthyX: p[2].Amplification()}
		if p[1].UserCalls > 0 {
			r.DownFailedPct = 100 * float64(p[1].Failed) / float64(p[1].UserCalls)
		}
		if res.Recovery >= 0 {
			s := res.Recovery.Seconds()
			r.Recovery = &s
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// layersFieldNames turns the names of herd.LayersConfig's fields in its
// errors into the flags that set them.
var layersFieldNames = strings.NewReplacer("LayersConfig.Tiers", "-tiers", "LayersConfig.Tries", "-tries",
	"LayersConfig.Rate", "-rate", "LayersConfig.Capacity", "-capacity", "LayersConfig's phases", "-warmup, -down and -healthy")

// layersError is an error of herd.Layers as a usage error naming the flag.
func layersError(err error) error {
	if errors.Is(err, herd.ErrInvalidConfig) {
		return usagef("%s", layersFieldNames.Replace(trimPrefix(err.Error())))
	}
	return err
}

// value returns column c of r: a string, a number, or nil (recovery_s
// when the chain was not healthy again).
func (r layersRow) value(c string) any {
	switch c {
	case "scenario":
		return layersScenario
	case "strategy":
		return r.Strategy
	case "tiers":
		return r.Tiers
	case "tries":
		return int(r.Tries)
	case "warmup_x":
		return r.WarmupX
	case "down_x":
		return r.DownX
	case "healthy_x":
		return r.HealthyX
	case "down_failed_pct":
		return r.DownFailedPct
	case "recovery_s":
		if r.Recovery == nil {
			return nil
		}
		return *r.Recovery
	}
	return nil
}

// cell is column c of r as the table prints it: amplifications with
// three decimals, the share failed with one, seconds with two, "-" for a
// chain never healthy again.
func (r layersRow) cell(c string) string {
	switch v := r.value(c).(type) {
	case string:
		return v
	case int:
		return strconv.Itoa(v)
	case float64:
		switch c {
		case "down_failed_pct":
			return strconv.FormatFloat(v, 'f', 1, 64)
		case "recovery_s":
			return strconv.FormatFloat(v, 'f', 2, 64)
		}
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return "-"
}

// MarshalJSON writes r as an object of the layers columns, in order.
func (r layersRow) MarshalJSON() ([]byte, error) { return marshalObject(layersColumns, r.value) }

// writeLayers writes the rows as a table, CSV or JSON.
func writeLayers(w io.Writer, format string, rows []layersRow) error {
	switch format {
	case "json":
		return writeJSON(w, rows)
	case "csv":
		return writeRecords(w, layersColumns, rows, layersRow.cells)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(layersColumns, "\t")+"\t")
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r.cells(), "\t")+"\t")
	}
	return tw.Flush()
}

// cells are the cells of r, in the order of layersColumns.
func (r layersRow) cells() []string {
	out := make([]string, len(layersColumns))
	for i, c := range layersColumns {
		out[i] = r.cell(c)
	}
	return out
}

// runLayers runs the layers scenario (herd.Layers): a chain of tiers, each
// retrying the one below, over a dependency that fails, and prints per
// strategy the calls the dependency received per user call in each phase
// and the time to recover. It returns the exit code: exitInterrupted if
// ctx is done before the rows are (the strategies run one after the
// other, and it stops before the next).
func runLayers(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseLayers(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var u *usageError
	if err != nil {
		if !errors.As(err, &u) || !u.printed {
			report(stderr, err)
		}
		return 2
	}
	rows, err := layersRows(ctx, o)
	if err != nil && ctx.Err() != nil {
		fmt.Fprintln(stderr, "herd: interrupted")
		return exitInterrupted
	}
	if err != nil {
		report(stderr, err)
		return 2
	}
	if writeLayers(stdout, o.format, rows) != nil {
		return 1
	}
	return 0
}
