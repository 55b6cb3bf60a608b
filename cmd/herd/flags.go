package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/herdsafe/backoff/herd"
)

// options is what the command line asks for, checked.
type options struct {
	clients    []int // occ, restart and -live
	scenarios  []herd.Scenario
	strategies []herd.Strategy // occ, restart and -live
	// outageClients and outageStrategies are those of the outage
	// scenario.
	outageClients    []int
	outageStrategies []herd.Strategy
	// overloadClients and overloadStrategies are those of the overload
	// scenario, and overloadServer its server (the zero Server, the
	// defaults; no flag sets it: tests do, to make it quick).
	overloadClients    []int
	overloadStrategies []herd.Strategy
	overloadServer     herd.Server
	// serverModel, queue, queueLimit and dropExpired are the overload
	// server's model and its own policies, set on overloadServer's
	// copy each run takes (see overloadConfig).
	serverModel string
	queue       string
	queueLimit  int
	dropExpired bool
	rate        float64
	tries       int
	phases      herd.Phases
	// retry is the BackOff of the outage's retry stage; arrivals and
	// zeroOffsets are how its user calls arrive and where its guards'
	// windows start.
	retry       herd.BackOffSpec
	arrivals    herd.Arrivals
	zeroOffsets bool
	// serve is the address of the explorer page, if -serve asks for it.
	serve     string
	seed      uint64
	runs      int
	base, cap time.Duration
	capacity  int
	delay     herd.Delay
	maxCalls  int
	horizon   time.Duration
	out       string
	format    string
	chart     string
	quiet     bool
	live      bool
	liveLimit time.Duration
	// workers is how many simulations run at once; 0 means one per core.
	// No flag sets it: tests do, to run a sweep in order.
	workers int
	// keepRuns keeps each run of a row in row.seeds. No flag sets it:
	// the page does, to show the spread over the seeds.
	keepRuns bool
}

// Formats and chart kinds the flags accept.
var (
	formats = []string{"table", "csv", "json"}
	charts  = []string{"png", "svg", "none"}
)

// The retry stage's waits by default, which -retry starts from:
// policy.DefaultBackOff's.
const (
	defaultRetryBase = 100 * time.Millisecond
	defaultRetryCap  = 5 * time.Second
	defaultRetry     = "full(base=100ms,cap=5s)"
)

const (
	defaultClients       = "100,1000" // 100 for outage, 10 for overload, 300 with -live
	defaultScenarios     = "occ,restart,outage,shed,pushback"
	defaultOutageClients = 100
	defaultLiveClients   = 300
	defaultLiveLimit     = 6 * time.Second
	maxLiveClients       = 2000
	maxRuns              = 1000
	// maxHorizon is the first horizon the engine rejects: it counts load
	// in at most herd.MaxWindows windows.
	maxHorizon = herd.MaxWindows * herd.DefaultWindow
)

// errHelp is returned when -h or -help was asked for: the usage was
// printed and the command exits successfully.
var errHelp = flag.ErrHelp

// usageError is a bad command line; the command prints it and exits 2.
// printed says the flag package has already printed it, with the usage.
type usageError struct {
	msg     string
	printed bool
}

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// rawFlags are the flags parsed into strings and durations, checked
// later.
type rawFlags struct {
	clients, scenario, strategies, retry, arrivals, offsets *string
	mean, stddev                                            *time.Duration
}

// flagSet returns the command's flags, their defaults set into o.
func flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("herd", flag.ContinueOnError)
	defineFlags(fs, &options{})
	return fs
}

// defineFlags defines the command's flags on fs, those that need no check
// into o.
func defineFlags(fs *flag.FlagSet, o *options) rawFlags {
	var (
		clients = fs.String("clients", "", fmt.Sprintf("comma-separated fleet sizes to simulate (default %q, %d for outage and %d for overload; -live takes one size, %d unless given)",
			defaultClients, defaultOutageClients, defaultOverloadClients, defaultLiveClients))
		scenario   = fs.String("scenario", defaultScenarios, "scenarios: "+strings.Join(scenarioNames(), ", ")+" or all, comma-separated")
		strategies = fs.String("strategies", "all", "strategies to compare, comma-separated: all, or BackOffs ("+strings.Join(strategyNames(), ", ")+
			", for occ, restart, shed, pushback, -live; with settings, as full(base=10ms)), guard stacks for outage ("+strings.Join(outageStrategyNames(), ", ")+
			", or guards joined by + with settings, outermost first, as 'token-bucket+breaker(open=5s)'; see below) and "+strings.Join(overloadStrategyNames(), ", ")+
			" (overload); each scenario runs those it has")
		retry    = fs.String("retry", defaultRetry, "outage: the BackOff of every client's retry stage: "+strings.Join(herd.BackOffKinds(), ", ")+", with base and cap")
		arrivals = fs.String("arrivals", string(herd.Poisson), `outage: how user calls arrive: "poisson" (each client a Poisson process at -rate) or "even" (evenly spaced, the clients in turn)`)
		offsets  = fs.String("window-offsets", "random", `outage: where each client's guard windows (ratio, throttle) start: "random" (a seeded offset per client) or "zero" (every client's at time 0)`)
		mean     = fs.Duration("delay", herd.DefaultDelayMean, "mean one-way network delay")
		stddev   = fs.Duration("delay-stddev", herd.DefaultDelayStdDev, "standard deviation of the network delay (0: none)")
	)
	fs.Uint64Var(&o.seed, "seed", 1, "random seed; runs use seed, seed+1, …")
	fs.IntVar(&o.runs, "runs", 1, "runs per point, averaged, each with its own seed")
	fs.DurationVar(&o.base, "base", herd.DefaultBase, "first backoff interval of the strategies of occ, restart, shed, pushback and -live (InitialInterval)")
	fs.DurationVar(&o.cap, "cap", herd.DefaultCap, "largest backoff interval of the strategies of occ, restart, shed, pushback and -live (MaxInterval)")
	fs.IntVar(&o.capacity, "capacity", herd.DefaultCapacity, "restart: connections the server accepts per 10 ms window; shed, pushback: requests it serves at once; -live: requests served per 10 ms")
	fs.IntVar(&o.maxCalls, "max-calls", herd.DefaultMaxCalls, "occ, restart, shed, pushback, -live: calls one client makes before it gives up")
	fs.DurationVar(&o.horizon, "horizon", herd.DefaultHorizon, "simulated time after which a run stops (outage: no shorter than its phases)")
	fs.StringVar(&o.out, "out", "herd-out", "folder the charts are written to")
	fs.StringVar(&o.format, "format", "table", "output format: "+strings.Join(formats, ", "))
	fs.StringVar(&o.chart, "chart", "png", "chart format: "+strings.Join(charts, ", ")+"; with -format csv or json, charts are written only when -chart is given")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bar")
	fs.BoolVar(&o.live, "live", false, "ask the question for real: goroutine clients against a loopback HTTP server that restarts")
	fs.DurationVar(&o.liveLimit, "live-limit", defaultLiveLimit, "-live: the time each strategy gets on its clients' schedule, the 2s outage included; clients still retrying then are unfinished")
	fs.Float64Var(&o.rate, "rate", herd.DefaultRate, "outage: user calls each client starts per second")
	fs.IntVar(&o.tries, "tries", herd.DefaultTries, "outage: attempts per user call, the first included")
	fs.DurationVar(&o.phases.Warmup, "warmup", herd.DefaultWarmup, "outage: how long the dependency is healthy before it goes down")
	fs.DurationVar(&o.phases.Down, "down", herd.DefaultDown, "outage: how long the dependency is down, failing every call")
	fs.DurationVar(&o.phases.Degraded, "degraded", herd.DefaultDegraded, "outage: how long it is degraded after the outage, failing -degraded-failures of the calls")
	fs.Float64Var(&o.phases.DegradedFailures, "degraded-failures", herd.DefaultDegradedFailures, "outage: the fraction of the calls that fail while degraded")
	fs.DurationVar(&o.phases.Healthy, "healthy", herd.DefaultHealthy, "outage: how long it is healthy again after that, the time over which the recovery is judged")
	fs.StringVar(&o.serverModel, "server", "realistic", `overload: the server's model: "realistic" (Poisson arrivals, lognormal service times of mean and deviation 20 ms) or "steady" (evenly spaced arrivals, |Normal(20 ms, 2 ms)|)`)
	fs.StringVar(&o.queue, "queue", "fifo", `overload: the order the server serves the calls waiting in: "fifo", or "lifo" (the newest first while more calls wait than it has workers)`)
	fs.IntVar(&o.queueLimit, "queue-limit", 0, "overload: the calls the server's queue holds at most, the others refused at once (0: no bound)")
	fs.BoolVar(&o.dropExpired, "drop-expired", false, "overload: the server drops the calls whose callers gave up or cannot be answered before they do")
	fs.StringVar(&o.serve, "serve", "", "serve the explorer page on this address, such as 127.0.0.1:8080, instead of running the simulations the flags describe")
	return rawFlags{clients, scenario, strategies, retry, arrivals, offsets, mean, stddev}
}

// parseArgs parses and checks the command line. Errors from the flag
// package itself are printed on stderr by it, with the usage; the others are
// returned for the caller to print.
func parseArgs(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("herd", flag.ContinueOnError)
	var flagOut strings.Builder
	fs.SetOutput(&flagOut)
	defer func() { io.WriteString(stderr, clipFlagOutput(flagOut.String())) }()
	o := &options{}
	raw := defineFlags(fs, o)
	clients, scenario, strategies, retry, arrivals, offsets, mean, stddev := raw.clients, raw.scenario, raw.strategies, raw.retry, raw.arrivals, raw.offsets, raw.mean, raw.stddev
	fs.Usage = func() { usage(fs) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, errHelp
		}
		return nil, &usageError{msg: clipLine(err.Error()), printed: true}
	}
	if fs.NArg() > 0 {
		return nil, usagef("unexpected argument %q: herd takes flags only", clip(fs.Arg(0)))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["serve"] && len(set) > 1 {
		return nil, usagef("-serve takes no other flag: the page sets the simulation's")
	}
	if set["serve"] && o.serve == "" {
		return nil, usagef("-serve is empty; give an address, such as 127.0.0.1:8080")
	}
	if err := checkMode(o.live, set); err != nil {
		return nil, err
	}

	var err error
	switch {
	case set["clients"]:
		if o.clients, err = parseClients(*clients); err != nil {
			return nil, err
		}
		o.outageClients, o.overloadClients = o.clients, o.clients
	case o.live:
		o.clients = []int{defaultLiveClients}
	default:
		o.clients, _ = parseClients(defaultClients)
		o.outageClients = []int{defaultOutageClients}
		o.overloadClients = []int{defaultOverloadClients}
	}
	if !set["chart"] && o.format != "table" {
		o.chart = "none" // a script's output alone, unless it asks
	}
	if set["out"] && o.chart == "none" {
		return nil, usagef("-out names the charts' folder, but no chart is written; add -chart png or -chart svg")
	}
	if o.scenarios, err = parseScenarios(*scenario); err != nil {
		return nil, err
	}
	if !o.live {
		if err := checkScenarioFlags(o.scenarios, set, *scenario); err != nil {
			return nil, err
		}
	}
	if o.retry, err = herd.ParseBackOff(*retry, defaultRetryBase, defaultRetryCap); err != nil {
		return nil, usagef("-retry: %s", trimPrefix(err.Error()))
	}
	switch o.arrivals = herd.Arrivals(*arrivals); o.arrivals {
	case herd.Poisson, herd.Even:
	default:
		return nil, usagef("-arrivals %q is not poisson or even", clip(*arrivals))
	}
	switch *offsets {
	case "random":
	case "zero":
		o.zeroOffsets = true
	default:
		return nil, usagef("-window-offsets %q is not random or zero", clip(*offsets))
	}
	o.delay = herd.Delay{Mean: *mean, StdDev: *stddev}
	if err := o.check(); err != nil {
		return nil, err
	}
	if err := o.pickStrategies(*strategies); err != nil {
		return nil, err
	}
	if err := validateConfigs(o); err != nil {
		return nil, err
	}
	return o, nil
}

// validateConfigs asks the engine whether it can run every simulation the
// options describe, so that a setting it rejects is a bad command line,
// reported before any work is done, rather than a failure.
func validateConfigs(o *options) error {
	if o.live {
		return nil
	}
	for _, sc := range o.scenarios {
		clients, strategies := o.plan(sc)
		for _, n := range clients {
			for _, st := range strategies {
				if err := o.config(sc, n, st, 0).Validate(); err != nil {
					return usagef("the flags describe a simulation herd cannot run: %s", trimPrefix(err.Error()))
				}
			}
		}
	}
	return nil
}

// check reports the first option that makes no sense.
func (o *options) check() error {
	switch {
	case o.runs < 1 || o.runs > maxRuns:
		return usagef("-runs is %d; it must lie in [1, %d]", o.runs, maxRuns)
	case o.base <= 0:
		return usagef("-base is %v; it must be positive", o.base)
	case o.cap < o.base:
		return usagef("-cap (%v) is smaller than -base (%v)", o.cap, o.base)
	case o.capacity < 1:
		return usagef("-capacity is %d; the server must accept at least 1 connection per window", o.capacity)
	case o.delay.Mean < 0 || o.delay.StdDev < 0:
		return usagef("-delay and -delay-stddev must not be negative")
	case o.delay.Mean == 0 && o.delay.StdDev == 0:
		return usagef("-delay and -delay-stddev are both 0; a network takes some time")
	case o.maxCalls < 1:
		return usagef("-max-calls is %d; it must be at least 1", o.maxCalls)
	case o.horizon <= 0:
		return usagef("-horizon is %v; it must be positive", o.horizon)
	case o.horizon >= maxHorizon:
		return usagef("-horizon is %v; it must be shorter than %v (%d windows of %v)", o.horizon, maxHorizon, herd.MaxWindows, herd.DefaultWindow)
	case !slices.Contains(formats, o.format):
		return usagef("-format %q is not one of %s", clip(o.format), strings.Join(formats, ", "))
	case !slices.Contains(charts, o.chart):
		return usagef("-chart %q is not one of %s", clip(o.chart), strings.Join(charts, ", "))
	case o.chart != "none" && o.out == "":
		return usagef("-out is empty; name a folder, or pass -chart none")
	case o.live && len(o.clients) != 1:
		return usagef("-live runs one fleet; give -clients a single size")
	case o.live && o.clients[0] > maxLiveClients:
		return usagef("-live with %d clients: at most %d goroutine clients", o.clients[0], maxLiveClients)
	case o.live && o.liveLimit <= liveOutage:
		return usagef("-live-limit is %v; it must be longer than the %v outage, or no client can succeed", o.liveLimit, liveOutage)
	case !(o.rate > 0) || math.IsInf(o.rate, 0):
		return usagef("-rate is %v; it must be a positive number of user calls per second", o.rate)
	case o.serverModel != "realistic" && o.serverModel != "steady":
		return usagef("-server %q is not realistic or steady", clip(o.serverModel))
	case o.queue != "fifo" && o.queue != "lifo":
		return usagef("-queue %q is not fifo or lifo", clip(o.queue))
	case o.queueLimit < 0:
		return usagef("-queue-limit is %d; it must not be negative (0: no bound)", o.queueLimit)
	case o.tries < 1 || o.tries > herd.MaxTries:
		return usagef("-tries is %d; a user call makes from 1 to %d attempts", o.tries, herd.MaxTries)
	case o.phases.Warmup < 0 || o.phases.Degraded < 0:
		return usagef("-warmup and -degraded must not be negative")
	case o.phases.Down <= 0:
		return usagef("-down is %v; the outage must last some time", o.phases.Down)
	case o.phases.Healthy < herd.RecoveryHold:
		return usagef("-healthy is %v; the recovery is judged over %v at least", o.phases.Healthy, herd.RecoveryHold)
	case !(o.phases.DegradedFailures >= 0 && o.phases.DegradedFailures <= 1):
		return usagef("-degraded-failures is %v; it must lie in [0, 1]", o.phases.DegradedFailures)
	}
	return nil
}

func parseClients(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > herd.MaxClients {
			return nil, usagef("-clients: %q is not a fleet size; give whole numbers in [1, %d], comma-separated", clip(f), herd.MaxClients)
		}
		if slices.Contains(out, n) {
			return nil, usagef("-clients: %d is given twice; give each fleet size once", n)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}

func parseScenarios(s string) ([]herd.Scenario, error) {
	if strings.TrimSpace(s) == "all" {
		return herd.Scenarios(), nil
	}
	var out []herd.Scenario
	for f := range strings.SplitSeq(s, ",") {
		sc := herd.Scenario(strings.TrimSpace(f))
		if !slices.Contains(herd.Scenarios(), sc) {
			return nil, usagef("-scenario: %q is not a scenario; use %s or all", clip(f), strings.Join(scenarioNames(), ", "))
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out, nil
}
