package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
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
)

// overloadServeFlags are the flags of serveFlags that apply to overload,
// whose strategies are presets with no setting of their own.
// (The server's delay is not one: the bound on the clients holds for
// the default delay.)
var overloadServeFlags = []string{"scenario", "clients", "strategies", "seed"}

// serveFlags are the flags the page sets, in the order the command line
// it shows gives them: a run's query holds them by name.
var serveFlags = []string{"scenario", "clients", "strategies", "retry", "tries", "rate", "arrivals", "window-offsets",
	"warmup", "down", "degraded", "degraded-failures", "healthy", "base", "cap", "capacity", "max-calls",
	"delay", "delay-stddev", "seed"}

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

// explorer serves the page and runs its simulations, one at a time: a
// run asked for while another is in progress cancels it.
type explorer struct {
	timeout time.Duration // bounds a run: serveTimeout; 0 or less, a run has none left
	// started, if set, is called with a run's context once the run holds
	// the explorer, before it simulates: a test holds a run there.
	started func(ctx context.Context)
	// overloadServer is the server of the overload runs (the zero Server,
	// the defaults; tests set a quicker one).
	overloadServer herd.Server

	mu     sync.Mutex
	cancel context.CancelCauseFunc // of the run in progress, if any
	done   chan struct{}           // closed when it has stopped
}

func newExplorer() *explorer { return &explorer{timeout: serveTimeout} }

// errSuperseded is the cause of a run cancelled by a newer one.
var errSuperseded = errors.New("a newer run was asked for")

// errTooLong is the cause of a run that took longer than its bound.
var errTooLong = errors.New("the run took too long; make it smaller: fewer clients, a lower rate, shorter phases")

// handler routes the page's files and its API.
func (e *explorer) handler() http.Handler {
	mux := http.NewServeMux()
	files, _ := fs.Sub(explorerFiles, "explorer")
	mux.Handle("GET /", http.FileServerFS(files))
	mux.HandleFunc("GET /api/kinds", e.kinds)
	mux.HandleFunc("GET /api/run", e.run)
	return mux
}

// begin cancels the run in progress, waits for it to stop, and returns
// the context of the new run, bounded by e.timeout, and the function
// that ends it.
func (e *explorer) begin(parent context.Context) (context.Context, func()) {
	e.mu.Lock()
	if e.cancel != nil {
		e.cancel(errSuperseded)
	}
	prev := e.done
	ctx, cancel := context.WithCancelCause(parent)
	done := make(chan struct{})
	e.cancel, e.done = cancel, done
	e.mu.Unlock()
	if prev != nil {
		<-prev
	}
	tctx, stop := context.WithTimeoutCause(ctx, e.timeout, errTooLong)
	return tctx, func() {
		stop()
		cancel(nil)
		e.mu.Lock()
		if e.done == done {
			e.cancel, e.done = nil, nil
		}
		e.mu.Unlock()
		close(done)
	}
}

// reply writes v as JSON with the status code.
func reply(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// failure is the body of a run that did not give rows.
type failure struct {
	Error string `json:"error"`
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
	info := kindsInfo{Presets: map[string]string{}, Defaults: map[string]string{}, Docs: map[string]string{},
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
	fs := flagSet()
	for _, name := range serveFlags {
		if f := fs.Lookup(name); f != nil {
			v := f.DefValue
			if strings.HasSuffix(v, "m0s") { // 2m, not 2m0s
				v = strings.TrimSuffix(v, "0s")
			}
			info.Defaults[name], info.Docs[name] = v, f.Usage
		}
	}
	info.Defaults["clients"] = fmt.Sprint(defaultOutageClients)
	info.Defaults["scenario"] = string(herd.Outage)
	info.Defaults["strategies"] = "breaker"
	info.Defaults["overloadClients"] = fmt.Sprint(defaultOverloadClients)
	info.Defaults["overloadStrategy"] = "adaptive-gradient"
	reply(w, http.StatusOK, info)
}

// runResult is what a run gives the page: the row, as the table prints
// it, with the notes the table prints under it, the chart's series, the
// options as the command line reads them, and that command line.
type runResult struct {
	Command string            `json:"command"`
	Form    map[string]string `json:"form"`
	Guards  []guardForm       `json:"guards,omitempty"`
	Columns []string          `json:"columns"`
	Cells   []string          `json:"cells"`
	Note    string            `json:"note,omitempty"`
	Chart   chartData         `json:"chart"`
}

// guardForm is one guard of the stack, with every setting.
type guardForm struct {
	Kind   string            `json:"kind"`
	Params map[string]string `json:"params"`
}

func (e *explorer) run(w http.ResponseWriter, r *http.Request) {
	args, form, err := queryArgs(r.URL.Query())
	if err != nil {
		reply(w, http.StatusBadRequest, failure{err.Error()})
		return
	}
	err = checkOverloadForm(form)
	var o *options
	if err == nil {
		o, err = parseArgs(append(append([]string(nil), args...), "-chart", "none", "-quiet"), io.Discard)
	}
	if err == nil {
		err = checkServe(o)
	}
	if err != nil {
		var u *usageError
		msg := err.Error()
		if errors.As(err, &u) {
			msg = u.msg
		}
		reply(w, http.StatusBadRequest, failure{trimPrefix(msg)})
		return
	}
	ctx, end := e.begin(r.Context())
	defer end()
	if e.started != nil {
		e.started(ctx)
	}
	o.workers = 1
	o.overloadServer = e.overloadServer
	rows, err := sweep(ctx, o, func() {})
	switch {
	case err != nil && errors.Is(context.Cause(ctx), errSuperseded):
		reply(w, http.StatusConflict, failure{errSuperseded.Error()})
		return
	case err != nil && errors.Is(context.Cause(ctx), errTooLong):
		reply(w, http.StatusServiceUnavailable, failure{errTooLong.Error()})
		return
	case err != nil:
		reply(w, http.StatusInternalServerError, failure{trimPrefix(err.Error())})
		return
	case len(rows) != 1:
		reply(w, http.StatusInternalServerError, failure{fmt.Sprintf("%d rows, want 1", len(rows))})
		return
	}
	res := runResult{Command: commandLine(args), Form: form, Chart: chartOf(rows[0])}
	res.Columns = tableColumns(rows[0])
	res.Cells = cells(rows[0], res.Columns, true)
	res.Note = strings.TrimSpace(overloadFooter(rows))
	if rows[0].isOutage() {
		res.Guards = guardForms(o)
	}
	reply(w, http.StatusOK, res)
}

// tableColumns are the columns the table prints for r, in order.
func tableColumns(r row) []string {
	if r.isOverload() {
		return overloadColumnsOf(true)
	}
	if !r.isOutage() {
		return columnsOf(false, 1)
	}
	return append(columnsOf(true, 1), columnsOf(true, 2)[3:]...)
}

// guardForms returns every guard of the outage strategy of o, with each
// of its settings.
func guardForms(o *options) []guardForm {
	stack, err := herd.ParseStack(o.outageStrategies[0].Name)
	if err != nil {
		return nil
	}
	var out []guardForm
	for _, g := range stack.Guards {
		f := guardForm{Kind: g.Kind(), Params: map[string]string{}}
		for _, p := range g.Params() {
			f.Params[p.Name] = p.String()
		}
		out = append(out, f)
	}
	return out
}

// queryArgs turns a run's query into the command line's flags, in the
// order of serveFlags, and the form's values. A key that is not one of
// serveFlags is an error.
func queryArgs(q map[string][]string) (args []string, form map[string]string, err error) {
	form = map[string]string{}
	for k := range q {
		if !strings.Contains(","+strings.Join(serveFlags, ",")+",", ","+k+",") {
			return nil, nil, fmt.Errorf("%q is not a setting of the page; it sets %s", k, strings.Join(serveFlags, ", "))
		}
	}
	for _, name := range serveFlags {
		v := q[name]
		if len(v) == 0 || strings.TrimSpace(v[0]) == "" {
			continue
		}
		if len(v) > 1 {
			return nil, nil, fmt.Errorf("%s is given %d times", name, len(v))
		}
		args = append(args, "-"+name, strings.TrimSpace(v[0]))
		form[name] = strings.TrimSpace(v[0])
	}
	return args, form, nil
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
	for _, name := range serveFlags {
		if _, ok := form[name]; ok && !slices.Contains(overloadServeFlags, name) {
			return usagef("-%s does not apply to overload, whose strategies are presets with no setting of their own; it takes -%s",
				name, strings.Join(overloadServeFlags[1:], ", -"))
		}
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
	switch {
	case o.scenarios[0] == herd.Overload && slices.Max(clients) > maxServeOverloadClients:
		return usagef("the page runs overload with %d clients at most, a run of a few seconds; the command line runs more", maxServeOverloadClients)
	case slices.Max(clients) > maxServeClients:
		return usagef("the page runs %d clients at most; the command line runs more", maxServeClients)
	case len(clients) != 1:
		return usagef("the page runs one fleet size at a time")
	case len(strategies) != 1:
		return usagef("the page runs one strategy at a time")
	}
	switch o.scenarios[0] {
	case herd.Overload:
		return nil // its load is a share of the server's capacity, whatever the fleet
	case herd.Outage:
		if n := float64(clients[0]) * o.rate * phaseBounds(o.phases)[herd.NumPhases].Seconds(); n > maxServeUserCalls {
			return usagef("%.3g user calls; the page runs %d at most (fewer clients, a lower -rate or shorter phases); the command line runs more", n, maxServeUserCalls)
		}
		return nil
	}
	if o.maxCalls > maxServeCalls/clients[0] { // clients × max-calls, which may overflow an int
		return usagef("clients × max-calls is over %d, the most the page runs", maxServeCalls)
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
