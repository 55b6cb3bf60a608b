package main

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/herdsafe/backoff/herd"
)

// getJSON fetches path from srv and decodes its JSON into v; it returns the
// status code.
func getJSON(t *testing.T, srv *httptest.Server, path string, v any) int {
	t.Helper()
	res, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if v != nil {
		if err := json.NewDecoder(res.Body).Decode(v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return res.StatusCode
}

// The page is served from the embedded files, and fetches nothing from
// anywhere else: no address in it names another host.
func TestExplorerServesThePage(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newExplorer().handler())
	defer srv.Close()
	external := regexp.MustCompile(`(src|href|fetch\()\s*=?\s*["']?(https?:)?//`)
	for _, name := range []string{"/", "/app.js", "/style.css"} {
		res, err := http.Get(srv.URL + name)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || len(b) == 0 {
			t.Fatalf("%s: %d, %d bytes", name, res.StatusCode, len(b))
		}
		if m := external.Find(b); m != nil {
			t.Errorf("%s refers to another host: %q", name, m)
		}
	}
	var info kindsInfo
	if code := getJSON(t, srv, "/api/kinds", &info); code != http.StatusOK || len(info.Guards) == 0 || info.Defaults["retry"] != defaultRetry {
		t.Fatalf("/api/kinds: %d, %+v", code, info)
	}
	// Every setting of every guard, with its default, the failure rate's
	// and the limiter's sample window's among them.
	kinds := herd.GuardKinds()
	if len(info.Guards) != len(kinds) {
		t.Fatalf("/api/kinds: %d guards, want %d", len(info.Guards), len(kinds))
	}
	for i, k := range kinds {
		var want []paramInfo
		for _, p := range k.New().Params() {
			want = append(want, paramInfo{Name: p.Name, Doc: p.Doc, Default: p.String()})
		}
		if info.Guards[i].Name != k.Name || !slices.Equal(info.Guards[i].Params, want) {
			t.Errorf("/api/kinds: %+v, want %s with %+v", info.Guards[i], k.Name, want)
		}
	}
	for kind, want := range map[string][]string{"breaker": {"rate", "min-calls", "calls", "period", "slow", "slow-rate"}, "limiter": {"window", "samples", "baseline"}} {
		i := slices.IndexFunc(info.Guards, func(k kindInfo) bool { return k.Name == kind })
		for _, name := range want {
			if i < 0 || !slices.ContainsFunc(info.Guards[i].Params, func(p paramInfo) bool { return p.Name == name }) {
				t.Errorf("/api/kinds: %s lacks %q", kind, name)
			}
		}
	}
	if !slices.Equal(info.Scenarios, append(scenarioNames(), layersScenario)) || !slices.Equal(info.OverloadStrategies, overloadStrategyNames()) ||
		info.Limits["overloadClients"] != maxServeOverloadClients || !slices.Contains(info.OverloadStrategies, info.Defaults["overloadStrategy"]) {
		t.Errorf("/api/kinds: scenarios %q, overload's strategies %q, limits %v, defaults %v", info.Scenarios, info.OverloadStrategies, info.Limits, info.Defaults)
	}
	// The bound of overload's fleet is the calls in flight with which the
	// default server runs full without a queue: one call a client.
	delay := herd.Delay{Mean: herd.DefaultDelayMean, StdDev: herd.DefaultDelayStdDev}
	if full := (herd.Server{}).Capacity() * (herd.Server{}).NoLoad(delay).Seconds(); math.Round(full) != maxServeOverloadClients {
		t.Errorf("the default server runs full with %v calls in flight; the page's bound on overload's clients is %d", full, maxServeOverloadClients)
	}
}

// engineRow runs what args say as the command does, on the overload
// server given, and returns its one row.
func engineRow(t *testing.T, server herd.Server, args ...string) row {
	t.Helper()
	o, err := parseArgs(append(slices.Clone(args), "-chart", "none", "-quiet"), new(strings.Builder))
	if err != nil {
		t.Fatal(err)
	}
	o.overloadServer = server
	rows, err := sweep(context.Background(), o, func() {})
	if err != nil || len(rows) != 1 {
		t.Fatalf("%q: %d rows, %v", args, len(rows), err)
	}
	return rows[0]
}

// The page runs overload as the command does: the same table, with its
// note, the same chart, and the command line of the run.
func TestExplorerRunsOverload(t *testing.T) {
	t.Parallel()
	e := newExplorer()
	e.overloadServer = quickServer
	srv := httptest.NewServer(e.handler())
	defer srv.Close()
	for _, st := range []string{"adaptive-vegas", "bulkhead", "none"} {
		q := url.Values{"scenario": {"overload"}, "clients": {"3"}, "strategies": {st}, "seed": {"7"}}
		var res runResult
		if code := getJSON(t, srv, "/api/run?"+q.Encode(), &res); code != http.StatusOK {
			t.Fatalf("/api/run?%s: %d", q.Encode(), code)
		}
		args := []string{"-scenario", "overload", "-clients", "3", "-strategies", st, "-seed", "7"}
		want := engineRow(t, quickServer, args...)
		if res.Command != commandLine(args) {
			t.Errorf("command %q, want %q", res.Command, commandLine(args))
		}
		if cols := overloadColumnsOf(true); !slices.Equal(res.Columns, cols) || !slices.Equal(res.Cells, cells(want, cols, true)) {
			t.Errorf("%s: the page's table\n%q\n%q\nthe engine's\n%q\n%q", st, res.Columns, res.Cells, cols, cells(want, cols, true))
		}
		if note := strings.TrimSpace(overloadFooter([]row{want})); res.Note != note {
			t.Errorf("%s: note %q, want %q", st, res.Note, note)
		}
		if c := chartOf(want); !reflect.DeepEqual(res.Chart, c) {
			t.Errorf("%s: the page's chart is not the engine's:\n%+v\n%+v", st, res.Chart, c)
		}
		c := res.Chart
		if c.Kind != "overload" || len(c.Stages) != len(quickServer.Stages) || len(c.Panels) != 3 {
			t.Fatalf("%s: chart %+v", st, c)
		}
		for _, p := range c.Panels {
			// With no guard there is no limit: its panel is empty, an
			// empty series (never null, which the page cannot draw).
			empty := st == "none" && p.Name == "limit"
			if (len(p.X) == 0) != empty || p.X == nil || p.Y == nil || len(p.X) != len(p.Y) || len(p.Guide) != len(c.Stages) || !(p.Max > p.Min) {
				t.Errorf("%s: panel %s: %d times, %d values, guide %v, axis [%v, %v]", st, p.Name, len(p.X), len(p.Y), p.Guide, p.Min, p.Max)
			}
		}
		if st == "none" {
			continue
		}
		// The limit of a fixed bulkhead does not move; that of the limiter does.
		limit := c.Panels[2].Y
		if moves := slices.Min(limit) != slices.Max(limit); moves != (st != "bulkhead") {
			t.Errorf("%s: the fleet's limit ranges over [%v, %v]", st, slices.Min(limit), slices.Max(limit))
		}
	}
}

// A run of the page gives the row the command gives for the same flags,
// and the command line that does.
func TestExplorerRunIsTheCommandsRun(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newExplorer().handler())
	defer srv.Close()
	q := url.Values{"scenario": {"outage"}, "clients": {"10"}, "strategies": {"token-bucket+breaker(open=2s)"},
		"warmup": {"3s"}, "down": {"3s"}, "degraded": {"1s"}, "healthy": {"2s"}, "rate": {"50"}}
	var res runResult
	if code := getJSON(t, srv, "/api/run?"+q.Encode(), &res); code != http.StatusOK {
		t.Fatalf("/api/run: %d", code)
	}
	want := "go run ./cmd/herd -scenario outage -clients 10 -strategies 'token-bucket+breaker(open=2s)' -rate 50 -warmup 3s -down 3s -degraded 1s -healthy 2s"
	if res.Command != want {
		t.Errorf("command %q\nwant    %q", res.Command, want)
	}
	args := []string{"-scenario", "outage", "-clients", "10", "-strategies", "token-bucket+breaker(open=2s)", "-rate", "50",
		"-warmup", "3s", "-down", "3s", "-degraded", "1s", "-healthy", "2s", "-format", "csv"}
	code, out, errs := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("the command: exit %d, %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	header, cellsOut := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	for i, c := range res.Columns {
		j := slices.Index(header, c)
		if j < 0 {
			t.Fatalf("the CSV has no %s", c)
		}
		if got, want := strings.TrimPrefix(res.Cells[i], ">"), cellsOut[j]; !sameFigure(got, want) {
			t.Errorf("%s: the page %q, the command %q", c, res.Cells[i], want)
		}
	}
	if len(res.Guards) != 2 || res.Guards[1].Kind != "breaker" || res.Guards[1].Params["open"] != "2s" || res.Guards[1].Params["failures"] != "5" {
		t.Errorf("guards %+v", res.Guards)
	}
	if res.Chart.Kind != "outage" || len(res.Chart.X) == 0 || len(res.Chart.Peak) != len(res.Chart.Mean) || len(res.Chart.Phases) != 5 {
		t.Errorf("chart %+v", res.Chart)
	}
}

// sameFigure reports whether a table's cell and a CSV cell say the same:
// the table rounds to fewer decimals.
func sameFigure(table, csv string) bool {
	if table == csv {
		return true
	}
	if i := strings.IndexByte(table, '.'); i >= 0 && strings.HasPrefix(csv, table[:i+1]) {
		return len(csv) > len(table) // a longer form of the same number; rounding may differ in the last
	}
	return false
}

// What the page cannot run is refused with a message, before running.
func TestExplorerRefusesWhatItCannotRun(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newExplorer().handler())
	defer srv.Close()
	for q, want := range map[string]string{
		"scenario=outage&clients=3000&strategies=retry":                        "2000 clients at most",
		"scenario=outage,occ&clients=10":                                       "one scenario at a time",
		"scenario=outage&clients=2000&rate=100&strategies=retry":               "user calls; the page runs",
		"scenario=outage&strategies=breaker(opne=1s)":                          `no setting "opne"`,
		"scenario=outage&clients=10&clients=20":                                "given 2 times",
		"scenario=occ&clients=10,20,30&strategies=full,equal,no-jitter&runs=3": "27 simulations; the page runs 24 at most",
		"scenario=occ&clients=10&strategies=full&runs=11":                      "-runs: the page runs 10 runs at most",
		"scenario=occ&clients=10&rate=50":                                      "-rate sets outage, which -scenario occ",
		"scenario=overload&strategies=adaptive":                                `"adaptive" is not a strategy of overload; it has none, bulkhead`,
		"scenario=overload&strategies=full":                                    `"full" is not a strategy of overload`,
		"scenario=overload&strategies=none,retry":                              `"retry" is not a strategy of overload`,
		"scenario=overload&strategies=none&rate=50":                            "-rate does not apply to overload",
		"scenario=overload&strategies=none&retry=full":                         "-retry does not apply to overload",
		"scenario=overload&strategies=none&max-calls=5":                        "-max-calls does not apply to overload",
		"scenario=overload&clients=401&strategies=none":                        "overload with 400 clients at most",
		"scenario=overload&clients=0&strategies=none":                          "not a fleet size",
		"scenario=overload,overload&strategies=none&rate=50":                   "-rate does not apply to overload",
		"scenario=overload&strategies=none&delay=1ms":                          "-delay does not apply to overload",
	} {
		var f failure
		if code := getJSON(t, srv, "/api/run?"+q, &f); code != http.StatusBadRequest || !strings.Contains(f.Error, want) {
			t.Errorf("%s: %d %q, want 400 saying %q", q, code, f.Error, want)
		}
	}
}

// Runs belong to their requests: two tabs' runs both finish, neither
// cancels the other; a run whose request goes stops; runs past
// maxServeConcurrent wait for a turn; a run past its bound answers 503.
func TestExplorerRunsBelongToTheirRequests(t *testing.T) {
	t.Parallel()
	e := newExplorer()
	holding := make(chan struct{})
	release := make(chan struct{})
	var runs atomic.Int32
	e.started = func(ctx context.Context) {
		if runs.Add(1) == 1 {
			close(holding)
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
	}
	srv := httptest.NewServer(e.handler())
	defer srv.Close()
	quick := "/api/run?scenario=restart&clients=20&strategies=full"
	first := make(chan int, 1)
	go func() {
		res, err := http.Get(srv.URL + quick)
		if err != nil {
			first <- 0
			return
		}
		res.Body.Close()
		first <- res.StatusCode
	}()
	<-holding
	// Tab B runs while tab A's run is held, and finishes first.
	var res runResult
	if code := getJSON(t, srv, quick+"&seed=2", &res); code != http.StatusOK || len(res.Cells) == 0 {
		t.Fatalf("the second tab's run: %d %+v", code, res)
	}
	close(release)
	if code := <-first; code != http.StatusOK {
		t.Fatalf("the first tab's run answered %d, want 200: a run of another tab does not cancel it", code)
	}

	// A run whose request goes stops, and gives its turn back.
	gone := newExplorer()
	held, stopped := make(chan struct{}), make(chan struct{})
	gone.started = func(ctx context.Context) { close(held); <-ctx.Done(); close(stopped) }
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, quick, nil)
	done := make(chan struct{})
	go func() { gone.handler().ServeHTTP(httptest.NewRecorder(), req); close(done) }()
	<-held
	cancel()
	<-stopped
	<-done
	if len(gone.turns) != 0 {
		t.Fatalf("%d turns held after the run's request went", len(gone.turns))
	}

	// The runs past maxServeConcurrent wait: with every turn taken, a run
	// waits until its bound, and says so.
	busy := newExplorer()
	for range maxServeConcurrent {
		busy.turns <- struct{}{}
	}
	busy.timeout = 0
	bsrv := httptest.NewServer(busy.handler())
	defer bsrv.Close()
	var f failure
	if code := getJSON(t, bsrv, quick, &f); code != http.StatusServiceUnavailable || !strings.Contains(f.Error, "longer than") {
		t.Fatalf("a run with no turn before its bound: %d %q, want 503", code, f.Error)
	}

	// A run whose bound has passed before it simulates anything.
	e.timeout = 0
	if code := getJSON(t, srv, quick, &f); code != http.StatusServiceUnavailable || !strings.Contains(f.Error, "longer than") {
		t.Fatalf("a run over its bound: %d %q, want 503", code, f.Error)
	}
}
