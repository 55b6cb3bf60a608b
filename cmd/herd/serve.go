package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/herdsafe/backoff/herd"
)

// The explorer page: index.html, app.js and style.css, served as they
// are, with nothing fetched from elsewhere.
//
//go:embed explorer
var explorerFiles embed.FS

// The bounds of a run of the explorer, so that a page left open cannot
// make the server compute for minutes: one scenario, one fleet size, one
// strategy, one run, at most maxServeClients clients (maxServeOverloadClients
// in overload), maxServeUserCalls user calls (outage) or maxServeCalls
// calls (occ, restart, shed, pushback), and serveTimeout of computing.
//
// An overload run starts the same calls whatever the fleet (the load is a
// share of the server's capacity), and takes one to two seconds of one
// core up to maxServeOverloadClients, the limiters' the longest. At that
// size each client's share of the 400 calls in flight with which the
// default server runs full without a queue is one call: a larger fleet's
// bulkheads and limiters cannot go lower, and admit more than the server
// can serve.
const (
	maxServeClients         = 2000
	maxServeOverloadClients = 400
	maxServeUserCalls       = 3_000_000
	maxServeCalls           = 2_000_000
	serveTimeout            = 30 * time.Second
	// maxServeRuns bounds the runs (seeds) per point of the page, and
	// maxServeSims the simulations of one run of the page: strategies ×
	// fleet sizes × runs.
	maxServeRuns = 10
	maxServeSims = 24
	// maxServeConcurrent is how many runs of the page simulate at once;
	// the others wait for their turn.
	maxServeConcurrent = 2
)

// overloadServeFlags are the flags of serveFlags that apply to overload,
// whose strategies are presets with no setting of their own.
// (The server's delay is not one: the bound on the clients holds for
// the default delay.)
var overloadServeFlags = []string{"scenario", "clients", "strategies", "seed", "runs", "server", "queue", "queue-limit", "drop-expired"}

// serveFlags are the flags the page sets, in the order the command line
// it shows gives them: a run's query holds them by name.
var serveFlags = []string{"scenario", "clients", "strategies", "retry", "tiers", "tries", "rate", "arrivals", "window-offsets",
	"warmup", "down", "degraded", "degraded-failures", "healthy", "base", "cap", "capacity", "max-calls",
	"delay", "delay-stddev", "seed", "runs", "server", "queue", "queue-limit", "drop-expired"}

// serve runs the explorer on addr until ctx is done, and returns the exit
// code: 1 if it cannot listen there.
func serve(ctx context.Context, addr string, stderr io.Writer) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		report(stderr, err)
		return 1
	}
	srv := &http.Server{Handler: newExplorer().handler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "herd: the explorer is at http://%s/ (Ctrl-C stops it)\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		report(stderr, err)
		return 1
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut)
	<-done
	return 0
}

// explorer serves the page and runs its simulations. Each run belongs to
// the request that asked for it: it stops when that request goes (a tab
// that asks for another run drops its previous request), never because
// of another tab's. At most maxServeConcurrent runs simulate at once;
// the others wait for a turn, within their bound.
type explorer struct {
	timeout time.Duration // bounds a run: serveTimeout; 0 or less, a run has none left
	// started, if set, is called with a run's context once the run has
	// its turn, before it simulates: a test holds a run there.
	started func(ctx context.Context)
	// overloadServer is the server of the overload runs (the zero Server,
	// the defaults; tests set a quicker one).
	overloadServer herd.Server

	turns chan struct{} // a token per run simulating
}

func newExplorer() *explorer {
	return &explorer{timeout: serveTimeout, turns: make(chan struct{}, maxServeConcurrent)}
}

// errTooLong is the cause of a run that took longer than its bound.
var errTooLong = fmt.Errorf("the run took longer than %v, the page's bound; make it smaller: fewer clients, strategies, fleet sizes or runs, a lower rate, shorter phases", serveTimeout)

// errGone is the cause of a run whose request went: its tab asked for
// another, or was closed.
var errGone = errors.New("the page no longer waits for this run")

// handler routes the page's files and its API.
func (e *explorer) handler() http.Handler {
	mux := http.NewServeMux()
	files, _ := fs.Sub(explorerFiles, "explorer")
	mux.Handle("GET /", http.FileServerFS(files))
	mux.HandleFunc("GET /api/kinds", e.kinds)
	mux.HandleFunc("GET /api/run", e.run)
	return mux
}

// begin waits for a turn to simulate, and returns the context of the
// run, bounded by e.timeout from the request's arrival, and the function
// that ends it; or the cause that ended the wait.
func (e *explorer) begin(parent context.Context) (context.Context, func(), error) {
	ctx, cancel := context.WithCancelCause(parent)
	tctx, stop := context.WithTimeoutCause(ctx, e.timeout, errTooLong)
	select {
	case e.turns <- struct{}{}:
	case <-tctx.Done():
		stop()
		cancel(nil)
		return nil, nil, context.Cause(tctx)
	}
	return tctx, func() {
		stop()
		cancel(nil)
		<-e.turns
	}, nil
}

// reply writes v as JSON with the status code.
func reply(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// kindsInfo is what the page builds its form from: the kinds of guard
// and of BackOff with their settings and defaults, the presets, the
// scenarios, the strategies of overload and the defaults of the flags.
type kindsInfo struct {
	Scenarios          []string            `json:"scenarios"`
	OverloadStrategies []string            `json:"overloadStrategies"`
	Guards             []kindInfo          `json:"guards"`
	BackOffs           []string            `json:"backoffs"`
	Presets            map[string]string   `json:"presets"`
	Defaults           map[string]string   `json:"defaults"`
	Limits             map[string]int      `json:"limits"`
	Docs               map[string]string   `json:"docs"`
	Params             map[string][]string `json:"backoffParams"`
	// LayersStrategies are the layers scenario's strategies, and
	// LayersDefaults and LayersDocs the defaults and the words of its
	// flags, which differ from the others' (its rate is the user calls
	// a second of the whole chain).
	LayersStrategies []string          `json:"layersStrategies"`
	LayersDefaults   map[string]string `json:"layersDefaults"`
	LayersDocs       map[string]string `json:"layersDocs"`
}

type kindInfo struct {
	Name   string      `json:"name"`
	Doc    string      `json:"doc"`
	Params []paramInfo `json:"params"`
}

type paramInfo struct {
	Name    string `json:"name"`
	Doc     string `json:"doc"`
	Default string `json:"default"`
}

func (e *explorer) kinds(w http.ResponseWriter, _ *http.Request) {
	info := kindsInfo{Presets: map[string]string{},
		Limits: map[string]int{"clients": maxServeClients, "overloadClients": maxServeOverloadClients,
			"userCalls": maxServeUserCalls, "calls": maxServeCalls},
		BackOffs: herd.BackOffKinds(), Params: map[string][]string{}, Scenarios: scenarioNames(),
		OverloadStrategies: overloadStrategyNames()}
	for _, k := range herd.GuardKinds() {
		ki := kindInfo{Name: k.Name, Doc: k.Doc}
		for _, p := range k.New().Params() {
			ki.Params = append(ki.Params, paramInfo{Name: p.Name, Doc: p.Doc, Default: p.String()})
		}
		info.Guards = append(info.Guards, ki)
	}
	for _, name := range outageStrategyNames() {
		st, _ := herd.ParseStack(name)
		info.Presets[name] = st.String()
	}
	for _, b := range herd.BackOffKinds() {
		spec := herd.BackOffSpec{Name: b}
		for _, p := range spec.Params() {
			info.Params[b] = append(info.Params[b], p.Name)
		}
	}
	info.Defaults, info.Docs = flagDefaults(flagSet(), serveFlags)
	info.Defaults["clients"] = fmt.Sprint(defaultOutageClients)
	info.Defaults["scenario"] = string(herd.Outage)
	info.Defaults["strategies"] = "breaker"
	info.Defaults["overloadClients"] = fmt.Sprint(defaultOverloadClients)
	info.Defaults["overloadStrategy"] = "adaptive-gradient"
	info.Scenarios = append(info.Scenarios, layersScenario)
	info.LayersStrategies = herd.LayersStrategies()
	info.LayersDefaults, info.LayersDocs = flagDefaults(layersFlags(), layersServeFlags)
	reply(w, http.StatusOK, info)
}

// flagDefaults returns the default and the words of each flag of fs that
// names gives, as the page shows them: a duration of minutes as 2m, not
// 2m0s.
func flagDefaults(fs *flag.FlagSet, names []string) (defaults, docs map[string]string) {
	defaults, docs = map[string]string{}, map[string]string{}
	for _, name := range names {
		if f := fs.Lookup(name); f != nil {
			v := f.DefValue
			if strings.HasSuffix(v, "m0s") {
				v = strings.TrimSuffix(v, "0s")
			}
			defaults[name], docs[name] = v, f.Usage
		}
	}
	return defaults, docs
}

// settingOutside returns the first setting of form, in the order of
// serveFlags, that is not one of takes; "" if there is none.
func settingOutside(form map[string]string, takes []string) string {
	for _, name := range serveFlags {
		if _, ok := form[name]; ok && !slices.Contains(takes, name) {
			return name
		}
	}
	return ""
}

// flagInError finds the flag an error of the command line is about.
var flagInError = regexp.MustCompile(`(?:^|[ (])-([a-z][a-z-]*)`)

// pageFailure is err, an error of the command line, as the page says it:
// in its words, at its field.
func pageFailure(err error) failure { return pageFailureIn(err, flagSet(), nil) }

// pageFailureIn is pageFailure for the flags of fs, whose fields labels
// names where they differ from fieldLabels.
func pageFailureIn(err error, fs *flag.FlagSet, labels map[string]string) failure {
	msg := err.Error()
	var u *usageError
	if errors.As(err, &u) {
		msg = u.msg
	}
	msg = trimPrefix(msg)
	f := failure{}
	if m := flagInError.FindStringSubmatch(msg); m != nil && slices.Contains(serveFlags, m[1]) {
		f.Field = m[1]
	}
	// The flag package's words: invalid value "x" for flag -rate: parse error.
	if m := flagParseError.FindStringSubmatch(msg); m != nil {
		f.Field = m[2]
		words := fieldWords(m[2])
		if w, ok := labels[m[2]]; ok {
			words = w
		}
		msg = fmt.Sprintf("%s: %s is not %s", words, m[1], flagKindIn(fs, m[2]))
	}
	if strings.Contains(msg, "the Horizon (") {
		f.Field = "healthy"
		msg = horizonWords.ReplaceAllString(msg, "the $1 a simulation runs at most (the command line's -horizon)")
	}
	if f.Field == "strategies" || f.Field == "" {
		for _, k := range herd.GuardKinds() {
			if strings.Contains(msg, "strategies: "+k.Name+":") || strings.Contains(msg, "strategies: "+k.Name+" ") {
				f.Field, f.Guard = "strategies", k.Name
				break
			}
		}
	}
	if f.Guard != "" {
		// The guard's own words name its options (WithConsecutiveFailures);
		// the page names its settings (failures).
		msg = guardOption.ReplaceAllStringFunc(msg, func(opt string) string {
			name := guardOption.FindStringSubmatch(opt)[1]
			if set, ok := optionSettings[name]; ok {
				if f.Setting == "" {
					f.Setting, _, _ = strings.Cut(set, " ")
				}
				return set
			}
			return opt
		})
	}
	f.Error = msg
	return f
}

// guardOption is an option of a guard's package, as its errors name it:
// WithK(0), WithConsecutiveFailures, and the budgets' with the name of
// their package: budget: WithMaxTokens(-1).
var guardOption = regexp.MustCompile(`(?:budget: )?(With[A-Za-z]+)(?:\([^)]*\))?`)

// optionSettings are the settings of the page's guards each option of
// their packages sets, as the page names them.
var optionSettings = map[string]string{
	"WithConsecutiveFailures": "failures", "WithOpenDuration": "open", "WithHalfOpen": "probes and successes",
	"WithFailureRateOver": "rate, min-calls and period", "WithFailureRate": "rate, min-calls and calls",
	"WithSlowCalls": "slow and slow-rate", "WithK": "k", "WithWindow": "window", "WithMaxTokens": "tokens",
	"WithTokenRatio": "ratio", "WithRetryRatio": "ratio", "WithMinRetriesPerSecond": "reserve",
	"WithInitialLimit": "initial", "WithFloor": "floor", "WithCeiling": "ceiling", "WithGradient": "tolerance",
	"WithVegas": "alpha and beta", "WithDecrease": "decrease", "WithBaseline": "baseline",
}

var (
	flagParseError = regexp.MustCompile(`^invalid value ("[^"]*"(?:…")?) for flag -([a-z-]+): .*$`)
	horizonWords   = regexp.MustCompile(`the Horizon \(([^)]*)\)`)
)

// fieldWords is the label of a field of the page, as a person reads it.
func fieldWords(name string) string {
	if w, ok := fieldLabels[name]; ok {
		return w
	}
	return name
}

// fieldLabels are the labels of the page's fields.
var fieldLabels = map[string]string{
	"clients": "clients", "seed": "seed", "runs": "runs", "rate": "user calls per client per second",
	"warmup": "healthy for", "down": "down for", "degraded": "degraded for", "degraded-failures": "failing while degraded",
	"healthy": "healthy again for", "tries": "tries per user call", "max-calls": "calls per client at most",
	"capacity": "capacity", "delay": "network delay", "server": "server model", "queue": "queue order", "queue-limit": "queue bound", "delay-stddev": "its spread", "base": "base", "cap": "cap",
}

// flagKindIn says what the flag name of fs takes, for a person.
func flagKindIn(fs *flag.FlagSet, name string) string {
	f := fs.Lookup(name)
	if f == nil {
		return "valid"
	}
	switch f.Value.(type) {
	case interface{ IsBoolFlag() bool }:
		return "true or false"
	}
	switch fmt.Sprintf("%T", f.Value) {
	case "*flag.durationValue":
		return "a duration (write 500ms, 5s, 2m)"
	case "*flag.float64Value":
		return "a number"
	case "*flag.intValue", "*flag.uint64Value", "*flag.uintValue":
		return "a whole number"
	}
	return "valid"
}

// queryArgs turns a run's query into the command line's flags, in the
// order of serveFlags, and the form's values. A key that is not one of
// serveFlags is left out (utm_source, fbclid: a link may carry them);
// one given twice is an error. Without clients, the run has the page's
// fleet of its scenario, one size.
func queryArgs(q map[string][]string) (args []string, form map[string]string, err error) {
	form = map[string]string{}
	for _, name := range serveFlags {
		v := q[name]
		if len(v) == 0 || strings.TrimSpace(v[0]) == "" {
			continue
		}
		if len(v) > 1 {
			return nil, nil, usagef("-%s is given %d times", name, len(v))
		}
		form[name] = strings.TrimSpace(v[0])
	}
	if _, ok := form["clients"]; !ok && form["scenario"] != layersScenario {
		form["clients"] = fmt.Sprint(defaultOutageClients)
		if sc, err := parseScenarios(form["scenario"]); err == nil && slices.Equal(sc, []herd.Scenario{herd.Overload}) {
			form["clients"] = fmt.Sprint(defaultOverloadClients)
		}
		if _, ok := form["scenario"]; !ok {
			form["scenario"] = string(herd.Outage)
		}
	}
	fs := flagSet()
	for _, name := range serveFlags {
		v, ok := form[name]
		switch {
		case !ok:
		case isBoolFlag(fs.Lookup(name)):
			args = append(args, "-"+name+"="+v) // a bool flag takes no separate value
		default:
			args = append(args, "-"+name, v)
		}
	}
	return args, form, nil
}

// isBoolFlag reports whether f is a flag that takes no separate value.
func isBoolFlag(f *flag.Flag) bool {
	if f == nil {
		return false // a flag of another flag set: the layers scenario's
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// checkOverloadForm reports, for a run of overload alone, a setting of
// the form that does not apply to it, or a strategy that is not one of
// its own. It comes before the flags are parsed, which would take the
// strategy of another scenario (full, breaker) for that scenario's and
// answer about all of them.
func checkOverloadForm(form map[string]string) error {
	if sc, err := parseScenarios(form["scenario"]); err != nil || !slices.Equal(sc, []herd.Scenario{herd.Overload}) {
		return nil // parseArgs reports a bad list, checkServe more than one
	}
	if name := settingOutside(form, overloadServeFlags); name != "" {
		return usagef("-%s does not apply to overload, whose strategies are presets with no setting of their own; it takes -%s",
			name, strings.Join(overloadServeFlags[1:], ", -"))
	}
	list, ok := form["strategies"]
	if !ok {
		return nil // all of them: one strategy at a time, checkServe says
	}
	for _, st := range herd.SplitStrategies(list) {
		if !slices.Contains(overloadStrategyNames(), st) {
			return usagef("-strategies: %q is not a strategy of overload; it has %s", st, strings.Join(overloadStrategyNames(), ", "))
		}
	}
	return nil
}

// checkServe reports what makes o too large or too broad for the page.
func checkServe(o *options) error {
	if len(o.scenarios) != 1 {
		return usagef("the page runs one scenario at a time")
	}
	clients, strategies := o.plan(o.scenarios[0])
	most := slices.Max(clients)
	switch {
	case o.scenarios[0] == herd.Overload && most > maxServeOverloadClients:
		return usagef("-clients: the page runs overload with %d clients at most, a run of a few seconds; the command line runs more", maxServeOverloadClients)
	case most > maxServeClients:
		return usagef("-clients: the page runs %d clients at most; the command line runs more", maxServeClients)
	case o.runs > maxServeRuns:
		return usagef("-runs: the page runs %d runs at most, each with its own seed; the command line runs more", maxServeRuns)
	case len(clients)*len(strategies)*o.runs > maxServeSims:
		return usagef("-strategies: %d strategies × %d fleet sizes × %d runs make %d simulations; the page runs %d at most",
			len(strategies), len(clients), o.runs, len(clients)*len(strategies)*o.runs, maxServeSims)
	}
	switch o.scenarios[0] {
	case herd.Overload:
		return nil // its load is a share of the server's capacity, whatever the fleet
	case herd.Outage:
		if n := float64(most) * o.rate * phaseBounds(o.phases)[herd.NumPhases].Seconds(); n > maxServeUserCalls {
			return usagef("-rate: %.3g user calls; the page runs %d at most (fewer clients, a lower rate or shorter phases); the command line runs more", n, maxServeUserCalls)
		}
		return nil
	}
	if o.maxCalls > maxServeCalls/most { // clients × max-calls, which may overflow an int
		return usagef("-max-calls: clients × max-calls is over %d, the most the page runs", maxServeCalls)
	}
	return nil
}

// plainArg is what a shell reads as one word without quotes.
var plainArg = regexp.MustCompile(`^[A-Za-z0-9_./:=,@%-]+$`)

// commandLine is the command that runs what args say.
func commandLine(args []string) string {
	out := []string{"go", "run", "./cmd/herd"}
	for _, a := range args {
		if !plainArg.MatchString(a) {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out = append(out, a)
	}
	return strings.Join(out, " ")
}
