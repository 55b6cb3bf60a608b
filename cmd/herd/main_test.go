package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/herdsafe/backoff/herd"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// runCmd runs the command with args and returns its exit code and output.
func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb, false)
	return code, out.String(), errb.String()
}

// shortOutage makes the outage scenario quick enough for a test: short
// phases, few user calls.
var shortOutage = []string{"-warmup", "2s", "-down", "2s", "-degraded", "1s", "-healthy", "1s", "-rate", "5"}

// small is a quick sweep: two small fleets, the scenarios occ, restart
// and outage (over short phases), all strategies. The folder of the
// charts is args[3].
func small(t *testing.T, extra ...string) []string {
	args := append([]string{"-clients", "5,20", "-out", t.TempDir(), "-scenario", "occ,restart,outage"}, shortOutage...)
	return append(args, extra...)
}

// tableRows counts the rows of a table: the lines that start with a
// scenario's name, each scenario, strategy and fleet size once (the rows
// of outage are in two tables).
func tableRows(table string) int {
	seen := map[string]bool{}
	for l := range strings.SplitSeq(table, "\n") {
		for _, sc := range []string{"occ ", "restart ", "outage ", "live "} {
			if f := strings.Fields(l); strings.HasPrefix(l, sc) && len(f) > 2 {
				seen[strings.Join(f[:3], " ")] = true
			}
		}
	}
	return len(seen)
}

// The table, and the charts in each format. A PNG chart is costly to
// encode: two of them show the PNG path, and the SVG charts, cheap to
// write, are all eight of the sweep.
func TestRunWritesTableAndCharts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		format string
		args   []string // on top of small's
		rows   int
		charts []string
	}{
		{"png", []string{"-clients", "5", "-scenario", "occ,outage"}, 2 + 2,
			[]string{"occ-timeline-5", "outage-timeline-5"}},
		{"svg", nil, 2*2*2 + 2*2,
			[]string{"occ-timeline-5", "occ-timeline-20", "occ-vs-clients",
				"restart-timeline-5", "restart-timeline-20", "restart-vs-clients",
				"outage-timeline-5", "outage-timeline-20"}},
	} {
		t.Run(tc.format, func(t *testing.T) {
			t.Parallel()
			// Two strategies of each kind: every chart has more than one
			// panel (the herd package checks every strategy's runs, and
			// TestChartsOfDegenerateData the panels of odd data).
			args := small(t, append([]string{"-chart", tc.format, "-strategies", "full,no-jitter,retry,breaker"}, tc.args...)...)
			dir := args[3]
			code, out, errs := runCmd(t, args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, errs)
			}
			if rows := tableRows(out); rows != tc.rows {
				t.Fatalf("%d table rows, want %d:\n%s", rows, tc.rows, out)
			}
			for _, name := range tc.charts {
				b, err := os.ReadFile(filepath.Join(dir, name+"."+tc.format))
				if err != nil {
					t.Fatal(err)
				}
				magic := map[string]string{"png": "\x89PNG", "svg": "<?xml"}[tc.format]
				if !bytes.HasPrefix(b, []byte(magic)) {
					t.Fatalf("%s.%s does not start with %q", name, tc.format, magic)
				}
			}
			if want := fmt.Sprintf("wrote %d charts", len(tc.charts)); !strings.Contains(errs, want) {
				t.Fatalf("stderr does not say where the charts went (%q):\n%s", want, errs)
			}
		})
	}
}

func TestRunFormats(t *testing.T) {
	t.Parallel()
	args := []string{"-clients", "8", "-scenario", "restart", "-strategies", "full,no-jitter", "-runs", "3", "-chart", "none", "-quiet"}

	_, table, _ := runCmd(t, args...)
	code, out, errs := runCmd(t, append(args, "-format", "json")...)
	if code != 0 || errs != "" {
		t.Fatalf("json: exit %d, stderr %q", code, errs)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("json output does not parse: %v\n%s", err, out)
	}
	if len(rows) != 2 || rows[0]["strategy"] != "full" || rows[1]["strategy"] != "no-jitter" ||
		rows[0]["scenario"] != "restart" || rows[0]["clients"] != 8.0 || rows[0]["runs"] != 3.0 {
		t.Fatalf("json rows = %v", rows)
	}

	code, out, _ = runCmd(t, append(args, "-format", "csv")...)
	if code != 0 {
		t.Fatalf("csv: exit %d", code)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("csv output does not parse: %v", err)
	}
	if len(recs) != 3 || recs[0][0] != "scenario" || recs[1][1] != "full" {
		t.Fatalf("csv records = %v", recs)
	}
	// The three formats agree on the numbers.
	for i, r := range rows {
		calls := recs[i+1][4]
		if calls != number(r["calls"].(float64)) || !strings.Contains(table, " "+calls+" ") {
			t.Errorf("row %d: calls %v in json, %s in csv; table:\n%s", i, r["calls"], calls, table)
		}
	}
}

// The table, the CSV file and the JSON document name the fields, and the
// strategies, alike: the table's header is the CSV header less runs, and
// the JSON keys are the CSV header, in order.
func TestFormatsShareTheirNames(t *testing.T) {
	t.Parallel()
	args := []string{"-clients", "8", "-scenario", "restart", "-strategies", "all", "-quiet"}
	_, table, _ := runCmd(t, append(args, "-chart", "none")...)
	_, out, _ := runCmd(t, append(args, "-format", "csv")...)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	_, out, _ = runCmd(t, append(args, "-format", "json")...)
	dec := json.NewDecoder(strings.NewReader(out))
	var keys []string
	for depth := 0; ; {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			continue
		case json.Delim('}'):
			depth = -1 // the first object is enough
		}
		if depth < 0 {
			break
		}
		keys = append(keys, tok.(string))
		if _, err := dec.Token(); err != nil { // the value
			t.Fatal(err)
		}
	}
	if want := columnsOf(false, -1); !reflect.DeepEqual(recs[0], want) || !reflect.DeepEqual(keys, want) {
		t.Errorf("CSV header %q, JSON keys %q; want both %q", recs[0], keys, want)
	}
	header := strings.Fields(strings.SplitN(table, "\n", 2)[0])
	if want := slices.DeleteFunc(columnsOf(false, -1), func(c string) bool { return c == "runs" }); !reflect.DeepEqual(header, want) {
		t.Errorf("table header %q, want %q", header, want)
	}
	for i, name := range strategyNames() {
		row := recs[i+1]
		if row[1] != name || !strings.Contains(table, "restart   "+name+" ") {
			t.Errorf("strategy %q: CSV says %q; table:\n%s", name, row[1], table)
		}
	}
}

// Charts go with the table: -format csv and json write none unless -chart
// asks for them.
func TestChartsOnlyWhenAsked(t *testing.T) {
	t.Chdir(t.TempDir()) // where the default -out would be
	for _, format := range []string{"csv", "json"} {
		code, _, errs := runCmd(t, "-clients", "5", "-scenario", "restart", "-strategies", "full", "-format", format)
		if code != 0 || errs != "" {
			t.Fatalf("-format %s: exit %d, stderr %q", format, code, errs)
		}
		if _, err := os.Stat("herd-out"); !os.IsNotExist(err) {
			t.Fatalf("-format %s wrote charts without -chart: %v", format, err)
		}
	}
	dir := t.TempDir()
	code, _, errs := runCmd(t, "-clients", "5", "-scenario", "restart", "-strategies", "full", "-format", "json", "-chart", "svg", "-out", dir)
	if _, err := os.Stat(filepath.Join(dir, "restart-timeline-5.svg")); code != 0 || err != nil {
		t.Fatalf("-format json -chart svg: exit %d, %v, stderr %q", code, err, errs)
	}
	code, _, _ = runCmd(t, "-clients", "5", "-scenario", "restart", "-strategies", "full")
	if _, err := os.Stat(filepath.Join("herd-out", "restart-timeline-5.png")); code != 0 || err != nil {
		t.Fatalf("the table writes its charts by default: exit %d, %v", code, err)
	}
}

func TestRunIsRepeatable(t *testing.T) {
	t.Parallel()
	// Two outage strategies, the guards of the others included: the herd
	// package checks each one's runs repeat.
	args := append(slices.Clone(shortOutage), "-clients", "10,20", "-runs", "2", "-chart", "none", "-format", "csv",
		"-strategies", strings.Join(strategyNames(), ",")+",retry,combined", "-seed", "5")
	_, a, _ := runCmd(t, args...)
	_, b, _ := runCmd(t, args...)
	if a != b {
		t.Fatalf("two runs with the same seed differ:\n%s\n%s", a, b)
	}
	_, c, _ := runCmd(t, append(args[:len(args)-1], "6")...)
	if a == c {
		t.Fatal("seeds 5 and 6 gave the same table")
	}
}

func TestBadFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"-clients", "abc"}, `-clients: "abc" is not a fleet size`},
		{[]string{"-clients", "0"}, `-clients: "0" is not a fleet size`},
		{[]string{"-clients", "10,,20"}, `-clients: "" is not a fleet size`},
		{[]string{"-clients", "2000000"}, "is not a fleet size"},
		{[]string{"-clients", "100,100"}, "-clients: 100 is given twice"},
		{[]string{"-strategies", "breaker(opne=5s)"}, `-strategies: breaker has no setting "opne"; it has failures, open, probes, successes`},
		{[]string{"-strategies", "breaker(open=-5s)"}, "-strategies: breaker: WithOpenDuration"},
		{[]string{"-scenario", "occ", "-rate", "50"}, "-rate sets outage, which -scenario occ does not run"},
		{[]string{"-scenario", "overload", "-window-offsets", "zero"}, "-window-offsets sets outage, which -scenario overload"},
		{[]string{"-scenario", "outage", "-max-calls", "5"}, "-max-calls sets occ, restart, shed, pushback, which -scenario outage"},
		{[]string{"-scenario", "occ", "-capacity", "3"}, "-capacity sets restart, shed, pushback, which -scenario occ"},
		{[]string{"-strategies", "full(base=1s,cap=1ms)"}, "-strategies: full: cap (1ms) is smaller than base (1s)"},
		{[]string{"-strategies", "retry+breaker"}, "retries without a guard"},
		{[]string{"-retry", "breaker"}, `-retry: "breaker" is not a BackOff`},
		{[]string{"-arrivals", "bursty"}, `-arrivals "bursty" is not poisson or even`},
		{[]string{"-window-offsets", "some"}, `-window-offsets "some" is not random or zero`},
		{[]string{"-serve", "127.0.0.1:0", "-clients", "10"}, "-serve takes no other flag"},
		{[]string{"-out", "/proc/nope"}, "-out: cannot make the charts' folder"},
		{[]string{"-scenario", "stampede"}, `-scenario: "stampede" is not a scenario`},
		{[]string{"-strategies", "full,fibonacci"}, `-strategies: "fibonacci" is not a guard; use token-bucket`},
		{[]string{"-seed", "-1"}, `invalid value "-1" for flag -seed`},
		{[]string{"-runs", "0"}, "-runs is 0"},
		{[]string{"-base", "0s"}, "-base is 0s"},
		{[]string{"-base", "5"}, `invalid value "5" for flag -base`},
		{[]string{"-cap", "1ms"}, "-cap (1ms) is smaller than -base (5ms)"},
		{[]string{"-capacity", "0"}, "-capacity is 0"},
		{[]string{"-delay", "-1ms"}, "must not be negative"},
		{[]string{"-delay", "0s", "-delay-stddev", "0s"}, "both 0"},
		{[]string{"-max-calls", "0"}, "-max-calls is 0"},
		{[]string{"-horizon", "0s"}, "-horizon is 0s"},
		{[]string{"-horizon", "100000h"}, "-horizon is 100000h0m0s; it must be shorter than 27h46m40s"},
		{[]string{"-format", "csv", "-out", "x"}, "-out names the charts' folder, but no chart is written"},
		{[]string{"-chart", "none", "-out", "x"}, "-out names the charts' folder, but no chart is written"},
		{[]string{"-format", "xml"}, `-format "xml" is not one of table, csv, json`},
		{[]string{"-chart", "gif"}, `-chart "gif" is not one of png, svg, none`},
		{[]string{"-out", ""}, "-out is empty"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-live", "-clients", "10,20"}, "give -clients a single size"},
		{[]string{"-live", "-clients", "5000"}, "at most 2000 goroutine clients"},
		{[]string{"-live", "-live-limit", "0s"}, "-live-limit is 0s; it must be longer than the 2s outage"},
		{[]string{"-live", "-live-limit", "2s"}, "-live-limit is 2s; it must be longer than the 2s outage"},
		{[]string{"-live-limit", "10s"}, "-live-limit applies only with -live"},
		{[]string{"-live", "-scenario", "restart"}, "-scenario does not apply to -live"},
		{[]string{"-live", "-runs", "3"}, "-runs does not apply to -live"},
		{[]string{"-live", "-seed", "1"}, "-seed does not apply to -live"},
		{[]string{"-live", "-horizon", "1h"}, "-horizon does not apply to -live"},
		{[]string{"-live", "-rate", "5"}, "-rate does not apply to -live"},
		{[]string{"-live", "-down", "5s"}, "-down does not apply to -live"},
		{[]string{"-live", "-strategies", "retry"}, "-live compares the restart strategies"},
		{[]string{"-scenario", "outage", "-strategies", "full"}, "no scenario asked for has any of them"},
		{[]string{"-rate", "0"}, "-rate is 0"},
		{[]string{"-rate", "-5"}, "-rate is -5"},
		{[]string{"-tries", "0"}, "-tries is 0"},
		{[]string{"-warmup", "-1s"}, "-warmup and -degraded must not be negative"},
		{[]string{"-down", "0s"}, "-down is 0s"},
		{[]string{"-healthy", "500ms"}, "-healthy is 500ms"},
		{[]string{"-degraded-failures", "1.5"}, "-degraded-failures is 1.5"},
		{[]string{"-scenario", "outage", "-horizon", "5m"}, "the Phases last 6m0s, longer than the Horizon (5m0s)"},
		{[]string{"-scenario", "outage", "-rate", "1e6"}, "user calls; at most"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			code, out, errs := runCmd(t, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if !strings.Contains(errs, tc.want) {
				t.Errorf("stderr %q does not say %q", errs, tc.want)
			}
			if !strings.HasPrefix(errs, "herd: ") && !strings.HasPrefix(errs, "flag provided") && !strings.HasPrefix(errs, "invalid value") || strings.Contains(errs, "herd: herd:") || strings.Contains(errs, "invalid configuration") {
				t.Errorf("stderr %q: want one herd: prefix, and no other", errs)
			}
		})
	}
}

// A configuration that passes the flags' own checks but that the engine
// rejects is a bad command line too, said once.
func TestEngineRejectsTheFlags(t *testing.T) {
	t.Parallel()
	o, err := parseArgs([]string{"-clients", "5"}, new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	o.horizon = 100000 * time.Hour // past the check of -horizon
	err = validateConfigs(o)
	var u *usageError
	if !errors.As(err, &u) || strings.Contains(u.msg, "herd:") || strings.Contains(u.msg, "invalid configuration") || !strings.Contains(u.msg, "Horizon (100000h0m0s) spans") {
		t.Fatalf("validateConfigs: %v; want a usage error without the engine's prefix", err)
	}
	var stderr bytes.Buffer
	report(&stderr, fmt.Errorf("%w: NewBackOff returned nil", herd.ErrInvalidBackOff))
	if got := stderr.String(); got != "herd: invalid BackOff: NewBackOff returned nil\n" {
		t.Errorf("report printed %q", got)
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	code, out, errs := runCmd(t, "-h")
	if code != 0 || out != "" {
		t.Fatalf("-h: exit %d, stdout %q", code, out)
	}
	all := names(func(column) bool { return true })
	for _, want := range append(all, "Usage: herd", "-clients", "-live", "-format",
		"write charts only when -chart is given", "130 interrupted", "was cut off at -horizon",
		"-rate", "-tries", "-warmup", "-down", "-degraded", "-degraded-failures", "-healthy", "within 1.1× the base load") {
		if !strings.Contains(errs, want) {
			t.Errorf("usage lacks %q", want)
		}
	}
	// Every setting of every guard, with its default.
	for _, k := range herd.GuardKinds() {
		for _, p := range k.New().Params() {
			if want := fmt.Sprintf("    %-12s%s (default %s)", p.Name, p.Doc, p); !strings.Contains(errs, want) {
				t.Errorf("usage lacks %s's setting %q", k.Name, want)
			}
		}
	}
	// The -clients flag states its default once.
	i := strings.Index(errs, "  -clients")
	entry := errs[i : i+strings.Index(errs[i+1:], "\n  -")+1]
	if n := strings.Count(entry, "default"); n != 1 || !strings.Contains(entry, `"100,1000"`) {
		t.Errorf("-clients says default %d times:\n%s", n, entry)
	}
}

func TestParseArgsDefaults(t *testing.T) {
	t.Parallel()
	o, err := parseArgs(nil, new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(o.clients, []int{100, 1000}) || len(o.scenarios) != len(herd.Scenarios())-1 || slices.Contains(o.scenarios, herd.Overload) || len(o.strategies) != 6 ||
		!reflect.DeepEqual(o.outageClients, []int{100}) || len(o.outageStrategies) != 7 || o.rate != herd.DefaultRate ||
		o.tries != herd.DefaultTries || o.phases.Down != herd.DefaultDown || o.phases.DegradedFailures != herd.DefaultDegradedFailures ||
		o.format != "table" || o.chart != "png" || o.out != "herd-out" || o.runs != 1 {
		t.Fatalf("defaults: %+v", o)
	}
	for args, chart := range map[string]string{"-format csv": "none", "-format json": "none",
		"-format json -chart svg": "svg", "-format csv -chart png -out x": "png", "-chart svg": "svg"} {
		o, err := parseArgs(strings.Fields(args), new(bytes.Buffer))
		if err != nil || o.chart != chart {
			t.Errorf("%s: chart %q, %v; want %q", args, o.chart, err, chart)
		}
	}
	o, err = parseArgs([]string{"-clients", " 1000, 10,100", "-strategies", "equal,full,equal", "-scenario", "restart"}, new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(o.clients, []int{10, 100, 1000}) {
		t.Errorf("clients %v, want sorted", o.clients)
	}
	if len(o.strategies) != 2 || o.strategies[0].Name != "equal" || o.strategies[1].Name != "full" {
		t.Errorf("strategies %v, want equal, full", o.strategies)
	}
	o, err = parseArgs([]string{"-live"}, new(bytes.Buffer))
	if err != nil || !reflect.DeepEqual(o.clients, []int{defaultLiveClients}) || o.liveLimit != defaultLiveLimit {
		t.Fatalf("-live: clients %v, limit %v, err %v; want %d, %v", o.clients, o.liveLimit, err, defaultLiveClients, defaultLiveLimit)
	}
	// Six strategies one after another, each within its limit, stay well
	// under a minute.
	if total := time.Duration(len(o.strategies)) * o.liveLimit; total > 45*time.Second {
		t.Errorf("-live may take %v", total)
	}
	// The flags that do apply to -live are accepted with it.
	_, err = parseArgs([]string{"-live", "-clients", "50", "-strategies", "full", "-base", "10ms", "-cap", "1s",
		"-capacity", "5", "-max-calls", "20", "-live-limit", "3s", "-delay", "5ms", "-delay-stddev", "1ms",
		"-format", "csv", "-chart", "none", "-quiet"}, new(bytes.Buffer))
	if err != nil {
		t.Errorf("-live with the flags that apply to it: %v", err)
	}
}

func TestSweepStopsOnCancel(t *testing.T) {
	t.Parallel()
	o, err := parseArgs([]string{"-clients", "10,20,30", "-runs", "5"}, new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rows, err := sweep(ctx, o, func() {}); !errors.Is(err, context.Canceled) || len(rows) != 0 {
		t.Fatalf("sweep with a cancelled context: %d rows, %v", len(rows), err)
	}
}

// A run cut off at the horizon says so: the clients still retrying are
// failed and unfinished, and the time is the horizon, marked as a bound.
func TestRunCutOffAtTheHorizon(t *testing.T) {
	t.Parallel()
	args := []string{"-clients", "50", "-scenario", "occ", "-strategies", "no-jitter", "-horizon", "500ms", "-chart", "none"}
	code, out, errs := runCmd(t, append(args, "-format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if r := rows[0]; r["unfinished"].(float64) == 0 || r["unfinished"] != r["failed"] || r["last_success_s"] != 0.5 {
		t.Fatalf("cut off at 500ms: %v", r)
	}
	_, table, _ := runCmd(t, args...)
	if !strings.Contains(table, " >0.50 ") || !strings.Contains(table, "unfinished: clients still retrying when the run was cut off at T") {
		t.Fatalf("the table does not mark the cut-off:\n%s", table)
	}
	_, out, _ = runCmd(t, append(args, "-format", "csv")...)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if h := recs[0]; h[5] != "last_success_s" || h[8] != "unfinished" || recs[1][8] != recs[1][7] || recs[1][5] != "0.500" {
		t.Fatalf("csv: %v", recs)
	}
}

// The runs of a row are added in their order, whatever order the workers
// finish them in: a sweep on four workers gives, to the last bit, the
// figures of a sweep on one.
func TestSweepAddsRunsInOrder(t *testing.T) {
	t.Parallel()
	args := []string{"-scenario", "outage", "-clients", "20", "-strategies", "ratio-10,breaker", "-runs", "4",
		"-warmup", "10s", "-down", "10s", "-degraded", "10s", "-healthy", "10s"}
	sweepOn := func(workers int) []row {
		o, err := parseArgs(args, new(bytes.Buffer))
		if err != nil {
			t.Fatal(err)
		}
		o.workers = workers
		rows, err := sweep(context.Background(), o, func() {})
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	want := sweepOn(1)
	for range 4 {
		got := sweepOn(4)
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if !bytes.Equal(g, w) {
			t.Fatalf("on four workers:\n%s\nwant, as on one:\n%s", g, w)
		}
	}
}
