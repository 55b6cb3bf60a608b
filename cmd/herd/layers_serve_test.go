package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// layersJSON runs the command with args and -format json, and returns
// its rows by strategy.
func layersJSON(t *testing.T, args []string) map[string]map[string]any {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(context.Background(), append(slices.Clone(args), "-format", "json"), &out, &errOut, false); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
	}
	var rows []map[string]any
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out.String())
	}
	by := map[string]map[string]any{}
	for _, r := range rows {
		by[r["strategy"].(string)] = r
	}
	return by
}

// A layers run through the page's API gives, for each strategy, the
// figures -format json gives for the command line it shows, and those
// agree with the hand calculation: 3 tiers of 3 tries each retrying
// every failure send 27 calls to the dependency per user call while it is
// down, 3 with the do-not-retry signal, 1 when it is healthy. The query
// keeps the settings by name; the table has the command's columns.
func TestExplorerRunsLayers(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newExplorer().handler())
	defer srv.Close()
	for _, q := range []url.Values{
		{"scenario": {"layers"}, "strategies": {"retry,signal,budget,shed"}, "rate": {"20"}},
		{"scenario": {"layers"}, "tiers": {"2"}, "tries": {"4"}, "strategies": {"shed,retry"}, "capacity": {"1.5"},
			"warmup": {"2s"}, "down": {"5s"}, "healthy": {"3s"}, "rate": {"50"}},
	} {
		var res runResult
		if code := getJSON(t, srv, "/api/run?"+q.Encode(), &res); code != http.StatusOK {
			t.Fatalf("%v: %d", q, code)
		}
		if !slices.Equal(res.Columns, layersColumns) || len(res.Headers) != len(res.Columns) || res.Chart.Kind != layersScenario || res.Note != layersNote {
			t.Errorf("%v: columns %q, headers %q, chart %q, note %q", q, res.Columns, res.Headers, res.Chart.Kind, res.Note)
		}
		args := strings.Fields(strings.TrimPrefix(res.Command, "go run ./cmd/herd "))
		want := layersJSON(t, args)
		if len(res.Rows) != len(want) || len(res.Rows) != len(strings.Split(q.Get("strategies"), ",")) {
			t.Fatalf("%v: %d rows, the command %d", q, len(res.Rows), len(want))
		}
		for i, r := range res.Rows {
			if r.Strategy != strings.Split(q.Get("strategies"), ",")[i] {
				t.Errorf("%v: row %d is %s, out of the query's order", q, i, r.Strategy)
			}
			w := want[r.Strategy]
			for _, c := range layersColumns {
				wv, isNum := w[c].(float64)
				if !isNum {
					continue
				}
				if got, ok := r.Values[c]; !ok || got != wv {
					t.Errorf("%v %s: %s is %v on the page, %v from -format json", q, r.Strategy, c, r.Values[c], wv)
				}
			}
		}
		if q.Get("tiers") == "" {
			for strategy, down := range map[string]float64{"retry": 27, "signal": 3} {
				if w := want[strategy]; w["down_x"] != down || w["warmup_x"] != 1.0 || w["healthy_x"] != 1.0 {
					t.Errorf("%s: %v; want %v calls at the bottom per user call while down, 1 otherwise", strategy, w, down)
				}
			}
		} else if want["retry"]["down_x"] != 16.0 {
			t.Errorf("2 tiers × 4 tries, every tier retrying: %v calls at the bottom per user call while down, want 16", want["retry"]["down_x"])
		}
		for name, v := range q {
			if res.Form[name] != v[0] {
				t.Errorf("%v: the form gives back %s=%q", q, name, res.Form[name])
			}
		}
		if _, ok := res.Form["clients"]; ok {
			t.Errorf("%v: the form has clients, which layers does not take", q)
		}
	}
}

// What the layers scenario cannot run, or the page will not, is said at
// the field it is about, in the page's words; a setting of the other
// scenarios is refused, not ignored, and -tiers is refused elsewhere.
func TestExplorerLayersErrors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newExplorer().handler())
	defer srv.Close()
	for _, c := range []struct{ query, field, words string }{
		{"scenario=layers&tiers=x", "tiers", `tiers: "x" is not a whole number`},
		{"scenario=layers&tiers=9", "tiers", "-tiers is 9; it must be 1 to 6"},
		{"scenario=layers&tiers=0", "tiers", "at least 1"},
		{"scenario=layers&tries=0", "tries", "at least 1"},
		{"scenario=layers&tries=11", "tries", "-tries is 11"},
		{"scenario=layers&rate=1.5", "rate", `user calls per second: "1.5" is not a whole number`},
		{"scenario=layers&rate=0", "rate", "at least 1"},
		{"scenario=layers&capacity=0", "capacity", "above 0"},
		{"scenario=layers&capacity=NaN", "capacity", "above 0"},
		{"scenario=layers&down=-1s", "down", "must not be negative"},
		{"scenario=layers&warmup=0s&down=0s&healthy=0s", "healthy", "nothing to run"},
		{"scenario=layers&healthy=2h", "healthy", "an hour at most"},
		{"scenario=layers&warmup=2000000h&down=2000000h", "healthy", "an hour at most"},
		{"scenario=layers&tiers=" + strings.Repeat("9", 5000), "tiers", "…"},
		{"scenario=layers&strategies=retry,breaker", "strategies", `"breaker" is not a strategy of the layers scenario`},
		{"scenario=layers&rate=5000&tiers=4&tries=5", "rate", "the page runs 10000000 at most"},
		{"scenario=layers&clients=10", "", "-clients does not apply to layers"},
		{"scenario=layers&tiers=2&tiers=3", "tiers", "given 2 times"},
		{"scenario=outage&tiers=3", "tiers", "layers scenario alone"},
		{"scenario=overload&tiers=3", "tiers", "layers scenario alone"},
	} {
		var f failure
		if code := getJSON(t, srv, "/api/run?"+c.query, &f); code != http.StatusBadRequest || f.Field != c.field || !strings.Contains(f.Error, c.words) {
			t.Errorf("%s: %d, %+v; want 400 at %q saying %q", c.query, code, f, c.field, c.words)
		}
	}
}

// The command's -format csv and json write the table's columns; a
// setting herd.LayersConfig would take for its default is refused.
func TestLayersFormats(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-scenario", "layers", "-strategies", "retry", "-rate", "5", "-format", "csv"}, &out, &errOut, false); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || lines[0] != strings.Join(layersColumns, ",") || lines[1] != "layers,retry,3,3,1.000,27.000,1.000,100.0,0.00" {
		t.Errorf("csv:\n%s", out.String())
	}
	rows := layersJSON(t, []string{"-scenario", "layers", "-strategies", "retry", "-rate", "5"})
	if len(rows) != 1 || rows["retry"]["down_x"] != 27.0 || len(rows["retry"]) != len(layersColumns) {
		t.Errorf("json: %v", rows)
	}
	// Interrupted, it stops before running and says so.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	errOut.Reset()
	if code := run(ctx, []string{"-scenario", "layers"}, &out, &errOut, false); code != exitInterrupted {
		t.Errorf("interrupted: exit %d, %q; want %d", code, errOut.String(), exitInterrupted)
	}
	// Pages of input are quoted cut short.
	for _, args := range [][]string{
		{"-scenario", "layers", "-tiers", strings.Repeat("x", 10_000)},
		{"-scenario", "layers", "-strategies", strings.Repeat("x", 10_000)},
		{"-scenario", "layers", "extra" + strings.Repeat("x", 10_000)},
	} {
		errOut.Reset()
		code := run(context.Background(), args, &out, &errOut, false)
		first, _, _ := strings.Cut(errOut.String(), "\n")
		if code != 2 || len(first) > 400 || !strings.Contains(first, "…") {
			t.Errorf("%.40q: exit %d, %d bytes: %.300q; want 2, the input cut short, in 400 bytes at most", args, code, len(first), first)
		}
	}
	for _, args := range [][]string{
		{"-scenario", "layers", "-rate", "0"},
		{"-scenario", "layers", "-capacity", "0"},
		{"-scenario", "layers", "-warmup", "0s", "-down", "0s", "-healthy", "0s"},
		{"-scenario", "layers", "-format", "xml"},
		{"-scenario", "layers", "-warmup", "2000000h", "-down", "2000000h"},
	} {
		errOut.Reset()
		if code := run(context.Background(), args, &out, &errOut, false); code != 2 || !strings.Contains(errOut.String(), "herd: -") {
			t.Errorf("%v: exit %d, %q; want 2 and a message naming the flag", args, code, errOut.String())
		}
	}
}

// A layers run takes its turn as the others do: with every turn taken it
// waits until its bound and says so; one whose request goes while it
// holds its turn answers that the page no longer waits, simulates
// nothing more and gives its turn back.
func TestExplorerLayersTakesTurns(t *testing.T) {
	t.Parallel()
	quick := "/api/run?scenario=layers&rate=5&strategies=retry,signal"
	busy := newExplorer()
	for range maxServeConcurrent {
		busy.turns <- struct{}{}
	}
	busy.timeout = 0
	bsrv := httptest.NewServer(busy.handler())
	defer bsrv.Close()
	var f failure
	if code := getJSON(t, bsrv, quick, &f); code != http.StatusServiceUnavailable || !strings.Contains(f.Error, "longer than") {
		t.Fatalf("a layers run with no turn before its bound: %d %q, want 503", code, f.Error)
	}

	gone := newExplorer()
	ctx, cancel := context.WithCancel(context.Background())
	gone.started = func(context.Context) { cancel() } // the tab goes as the run starts
	rec := httptest.NewRecorder()
	gone.handler().ServeHTTP(rec, httptest.NewRequestWithContext(ctx, http.MethodGet, quick, nil))
	if err := json.Unmarshal(rec.Body.Bytes(), &f); err != nil || rec.Code != http.StatusServiceUnavailable || f.Error != errGone.Error() {
		t.Errorf("a layers run whose request went: %d %s, want 503 saying %q", rec.Code, rec.Body.String(), errGone)
	}
	if len(gone.turns) != 0 {
		t.Errorf("%d turns held after the layers run's request went", len(gone.turns))
	}
}
