package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium returns the path of Debian's Chromium. Without it the test is
// skipped, unless HERD_BROWSER_REQUIRE is set (CI sets it), which makes
// it fail.
func chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/chromium", "chromium"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("HERD_BROWSER_REQUIRE") != "" {
		t.Fatal("HERD_BROWSER_REQUIRE is set, and there is no chromium: apt-get install -y chromium")
	}
	t.Skip("no chromium (apt-get install -y chromium); the explorer's browser test is skipped")
	return ""
}

// page is what the explorer page shows after a run: the table's cells by
// column and the note under it, the chart's series as drawn (for
// overload, each panel's times and values, by name), the command line,
// the query of the run, and the state.
type page struct {
	Columns []string          `json:"columns"`
	Cells   []string          `json:"cells"`
	Note    string            `json:"note"`
	Mean    string            `json:"mean"`
	Peak    string            `json:"peak"`
	Series  map[string]string `json:"series"`
	Command string            `json:"command"`
	Search  string            `json:"search"`
	State   string            `json:"state"`
	Status  string            `json:"status"`
}

const readPage = `JSON.stringify({
	columns: [...document.querySelectorAll("#table th")].map((e) => e.dataset.column),
	cells: [...document.querySelectorAll("#table td")].map((e) => e.textContent),
	note: document.getElementById("note").textContent,
	mean: document.querySelector("#chart svg")?.dataset.mean ?? "",
	peak: document.querySelector("#chart svg")?.dataset.peak ?? "",
	series: Object.fromEntries([...document.querySelectorAll("#chart [data-series]")].map((e) => [e.dataset.series, e.dataset.x + ";" + e.dataset.y])),
	command: document.getElementById("command").textContent,
	search: location.search,
	state: document.body.dataset.state,
	status: document.getElementById("status").textContent,
})`

// engine runs what args say as the command does (overload on
// quickServer), and returns the page it should show: the table's cells
// and the chart's series.
func engine(t *testing.T, args []string) page {
	t.Helper()
	r := engineRow(t, quickServer, args...)
	c := chartOf(r)
	join := func(v []float64) string {
		s := make([]string, len(v))
		for i, x := range v {
			// As JavaScript writes a number: the shortest form that reads
			// back the same.
			s[i] = strconv.FormatFloat(x, 'g', -1, 64)
			if strings.Contains(s[i], "e") {
				s[i] = jsNumber(x)
			}
		}
		return strings.Join(s, ",")
	}
	cols := tableColumns(r)
	series := map[string]string{}
	for _, p := range c.Panels {
		series[p.Name] = join(p.X) + ";" + join(p.Y)
	}
	return page{Columns: cols, Cells: cells(r, cols, true), Note: strings.TrimSpace(overloadFooter([]row{r})),
		Mean: join(c.Mean), Peak: join(c.Peak), Series: series, Command: commandLine(args)}
}

// layersEngine runs what args say as the command's layers scenario
// does, and returns the page it should show: its table and note.
func layersEngine(t *testing.T, args []string) page {
	t.Helper()
	o, err := parseLayers(args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := layersRows(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	p := page{Columns: layersColumns, Note: layersNote, Series: map[string]string{}, Command: commandLine(args)}
	for _, r := range rows {
		for _, c := range layersColumns {
			p.Cells = append(p.Cells, r.cell(c))
		}
	}
	return p
}

// jsNumber writes x as JavaScript's Number.prototype.toString does for
// the small and large values strconv writes with an exponent.
func jsNumber(x float64) string {
	s := strconv.FormatFloat(x, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	n, _ := strconv.Atoi(exp)
	if n >= -6 && n < 21 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprintf("%se%+d", mant, n)
}

// The explorer in a real browser: the page loads a run from its address,
// shows the table and the chart the engine gives for it; a parameter
// changed in the form and run again changes both, to the engine's figures
// for the new parameters, and the command line to the one that runs it.
// Overload picked in the form hides the settings that do not apply to
// it, and its run shows the engine's table and chart, with a query of
// the settings that apply alone. Layers picked shows its own settings
// alone, with its strategies ticked side by side; its run shows the
// command's table and a bar per strategy and phase, a bad tier count is
// marked at its field, and the run's address loaded afresh gives the
// same form and table.
func TestExplorerInABrowser(t *testing.T) {
	t.Parallel()
	path := chromium(t)
	e := newExplorer()
	e.overloadServer = quickServer
	srv := httptest.NewServer(e.handler())
	defer srv.Close()

	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1100, 1500))
	defer cancelAlloc()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(bctx); err != nil { // starts the browser, with no deadline
		t.Fatal(err)
	}
	ctx, cancelRun := context.WithTimeout(bctx, 2*time.Minute)
	defer cancelRun()

	// A small outage, so that the run is quick under the race detector.
	flags := []string{"-scenario", "outage", "-clients", "10", "-strategies", "token-bucket+breaker(open=1s)",
		"-rate", "25", "-warmup", "4s", "-down", "4s", "-degraded", "2s", "-healthy", "3s"}
	q := url.Values{}
	for i := 0; i < len(flags); i += 2 {
		q.Set(strings.TrimPrefix(flags[i], "-"), flags[i+1])
	}
	runs := func(n int) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Poll[bool](fmt.Sprintf(`Number(document.body.dataset.runs) >= %d`, n), chromedp.WithPollingTimeout(time.Minute))(ctx, tg)
			return err
		})
	}
	read := func() page {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](readPage))
		if err != nil {
			t.Fatal(err)
		}
		var p page
		if err := json.Unmarshal([]byte(s), &p); err != nil {
			t.Fatal(err)
		}
		if p.State != "done" {
			t.Fatalf("the page says %s: %s", p.State, p.Status)
		}
		return p
	}
	check := func(got, want page) {
		t.Helper()
		if !slices.Equal(got.Columns, want.Columns) || !slices.Equal(got.Cells, want.Cells) {
			t.Errorf("the table shows\n%q\n%q\nthe engine gives\n%q\n%q", got.Columns, got.Cells, want.Columns, want.Cells)
		}
		if got.Note != want.Note {
			t.Errorf("the note under the table reads %q, want %q", got.Note, want.Note)
		}
		if !maps.Equal(got.Series, want.Series) {
			t.Errorf("the chart's panels draw other series than the engine gives:\n%.300v\nwant\n%.300v", got.Series, want.Series)
		}
		if got.Mean != want.Mean || got.Peak != want.Peak {
			t.Errorf("the chart draws other series than the engine gives:\nmean %.80s…\nwant %.80s…\npeak %.80s…\nwant %.80s…", got.Mean, want.Mean, got.Peak, want.Peak)
		}
		if got.Command != want.Command {
			t.Errorf("the command line reads %q, want %q", got.Command, want.Command)
		}
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?"+q.Encode()), runs(1)); err != nil {
		t.Fatal(err)
	}
	first := read()
	check(first, engine(t, flags))

	// The breaker's open duration, changed in the form as a user types.
	open := chromedp.CSS(`#guard-1-open`)
	if err := chromedp.Do(ctx,
		chromedp.WaitVisible(open),
		chromedp.Clear(open),
		chromedp.SendKeys(open, "3s"),
		chromedp.Click(chromedp.CSS("#run")),
		runs(2)); err != nil {
		t.Fatal(err)
	}
	second := read()
	changed := slices.Clone(flags)
	changed[slices.Index(changed, "token-bucket+breaker(open=1s)")] = "token-bucket+breaker(open=3s)"
	check(second, engine(t, changed))
	if slices.Equal(first.Cells, second.Cells) || first.Peak == second.Peak {
		t.Errorf("the open duration changed, but the table and the chart did not:\n%q\n%q", first.Cells, second.Cells)
	}

	// Overload, picked in the form with one of its strategies and a fleet
	// size, as a user does.
	clients := chromedp.CSS(`#clients`)
	if err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`#scenario`), "overload"), // fires change, as a pick does
		chromedp.WaitVisible(chromedp.CSS(`#overload-strategy`)),
		chromedp.WaitNotVisible(chromedp.CSS(`#backoff`)),
		chromedp.WaitNotVisible(chromedp.CSS(`#guards-set`)),
		chromedp.WaitNotVisible(chromedp.CSS(`#rate`))); err != nil {
		t.Fatal(err)
	}
	form, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[document.getElementById("clients").value,
		document.getElementById("rate").disabled, document.getElementById("backoff").disabled,
		document.getElementById("overload-strategy").disabled, document.getElementById("overload-bound").textContent].join(" ")`))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d true true false %d", defaultOverloadClients, maxServeOverloadClients); form != want {
		t.Errorf("overload picked, the form reads (clients, rate and backoff disabled, strategy disabled, bound) %q, want %q", form, want)
	}
	if err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`#overload-strategy`), "adaptive-vegas"),
		clearField("clients"), // Clear sets the attribute, which a value the page set hides
		chromedp.SendKeys(clients, "3"),
		chromedp.Click(chromedp.CSS("#run")),
		runs(3)); err != nil {
		t.Fatal(err)
	}
	over := read()
	overFlags := []string{"-scenario", "overload", "-clients", "3", "-strategies", "adaptive-vegas"}
	check(over, engine(t, overFlags))
	sent, err := url.ParseQuery(strings.TrimPrefix(over.Search, "?"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (url.Values{"scenario": {"overload"}, "clients": {"3"}, "strategies": {"adaptive-vegas"}}); !reflect.DeepEqual(sent, want) {
		t.Errorf("the page asked for %v, want %v: the settings that apply to overload alone", sent, want)
	}
	if len(over.Series) != 3 || over.Mean != "" {
		t.Errorf("the overload chart draws panels %v and a load %.40q", slices.Sorted(maps.Keys(over.Series)), over.Mean)
	}
	t.Logf("overload on the quick server, 3 clients, from the page: %s", over.Status)
	// With no guard, the fleet has no limit: the page draws its panel
	// empty, and the run ends as any other.
	if err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`#overload-strategy`), "none"),
		chromedp.Click(chromedp.CSS("#run")),
		runs(4)); err != nil {
		t.Fatal(err)
	}
	check(read(), engine(t, []string{"-scenario", "overload", "-clients", "3", "-strategies", "none"}))
	// Back to outage, its settings are shown again.
	if err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`#scenario`), "outage"),
		chromedp.WaitVisible(chromedp.CSS(`#backoff`)),
		chromedp.WaitVisible(chromedp.CSS(`#rate`)),
		chromedp.WaitNotVisible(chromedp.CSS(`#overload-strategy`))); err != nil {
		t.Fatal(err)
	}

	// Layers, picked in the form: its own settings alone, its four
	// strategies ticked side by side, its table and a bar per strategy
	// and phase; a run with two tiers, then a bad tier count marked at
	// its field, then the run's address loaded afresh.
	if err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`#scenario`), "layers"),
		chromedp.WaitVisible(chromedp.CSS(`#tiers`)),
		chromedp.WaitVisible(chromedp.CSS(`#layers-strategy`)),
		chromedp.WaitVisible(chromedp.CSS(`#rate`)),
		chromedp.WaitNotVisible(chromedp.CSS(`#clients`)),
		chromedp.WaitNotVisible(chromedp.CSS(`#arrivals`)),
		chromedp.WaitNotVisible(chromedp.CSS(`#backoff`)),
		chromedp.WaitNotVisible(chromedp.CSS(`#guards-set`)),
		chromedp.WaitNotVisible(chromedp.CSS(`#delay`))); err != nil {
		t.Fatal(err)
	}
	lform, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[..."tiers tries rate warmup down healthy capacity".split(" ").map((id) => document.getElementById(id).value),
		[...document.querySelectorAll("#compare input:checked")].map((b) => b.value).join(",")].join(" ")`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "3 3 100 10s 30s 30s 2 signal,budget,shed"; lform != want {
		t.Errorf("layers picked, the form reads (tiers, tries, rate, phases, capacity, compared) %q, want its defaults %q", lform, want)
	}
	if err := chromedp.Do(ctx,
		clearField("tiers"),
		chromedp.SendKeys(chromedp.CSS(`#tiers`), "2"),
		chromedp.Click(chromedp.CSS("#run")),
		runs(5)); err != nil {
		t.Fatal(err)
	}
	layersFlags := []string{"-scenario", "layers", "-strategies", "retry,signal,budget,shed", "-tiers", "2"}
	lp := read()
	check(lp, layersEngine(t, layersFlags))
	if sent, _ := url.ParseQuery(strings.TrimPrefix(lp.Search, "?")); !reflect.DeepEqual(sent, url.Values{"scenario": {"layers"}, "tiers": {"2"}, "strategies": {"retry,signal,budget,shed"}}) {
		t.Errorf("the page asked for %v: want layers' settings that differ from its defaults alone", sent)
	}
	bars, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#chart rect.bar")].map((b) => b.dataset.name + "/" + b.dataset.phase + "=" + b.dataset.value).join(" ")`))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Fields(bars)); n != 12 || !strings.Contains(bars, "retry/down=9 ") || !strings.Contains(bars, "signal/down=3 ") {
		t.Errorf("the layers chart draws %d bars, %q; want 12 (4 strategies × 3 phases), retry's 9 (3²) and signal's 3 while down", n, bars)
	}
	if err := chromedp.Do(ctx,
		clearField("tiers"),
		chromedp.SendKeys(chromedp.CSS(`#tiers`), "9"),
		chromedp.Click(chromedp.CSS("#run")),
		runs(6)); err != nil {
		t.Fatal(err)
	}
	marked, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[document.getElementById("tiers").getAttribute("aria-invalid"),
		document.getElementById("error-tiers")?.textContent].join(" ")`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "true -tiers is 9; it must be 1 to 6"; marked != want {
		t.Errorf("tiers 9: the field reads %q, want %q", marked, want)
	}
	// (Without the tab's draft, which would keep the edit of 9 not run.)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`sessionStorage.clear(), true`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"+lp.Search), runs(1)); err != nil {
		t.Fatal(err)
	}
	check(read(), layersEngine(t, layersFlags))
	if v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[document.getElementById("scenario").value, document.getElementById("tiers").value,
		document.getElementById("layers-strategy").value, [...document.querySelectorAll("#compare input:checked")].map((b) => b.value).join(",")].join(" ")`)); err != nil || v != "layers 2 retry signal,budget,shed" {
		t.Errorf("the run's address loaded afresh fills the form with %q (%v), want layers 2 retry signal,budget,shed", v, err)
	}
	// Back to outage, the settings layers left at its defaults take
	// outage's, and its own are hidden.
	if err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`#scenario`), "outage"),
		chromedp.WaitVisible(chromedp.CSS(`#backoff`)),
		chromedp.WaitNotVisible(chromedp.CSS(`#tiers`)),
		chromedp.WaitNotVisible(chromedp.CSS(`#layers-strategy`))); err != nil {
		t.Fatal(err)
	}
	if v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`["rate", "warmup", "down", "healthy"].map((id) => document.getElementById(id).value).join(" ")`)); err != nil || v != "20 2m 1m 2m" {
		t.Errorf("back to outage, rate and phases read %q (%v), want outage's defaults 20 2m 1m 2m", v, err)
	}

	if shot := os.Getenv("HERD_EXPLORER_SCREENSHOT"); shot != "" {
		if err := chromedp.Do(ctx,
			chromedp.Navigate(srv.URL+"/?scenario=outage&clients=100&strategies="+url.QueryEscape("token-bucket+breaker(open=5s)")),
			runs(1)); err != nil {
			t.Fatal(err)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(shot, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
