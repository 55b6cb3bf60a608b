package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
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
// column, the chart's series as drawn, the command line, and the state.
type page struct {
	Columns []string `json:"columns"`
	Cells   []string `json:"cells"`
	Mean    string   `json:"mean"`
	Peak    string   `json:"peak"`
	Command string   `json:"command"`
	State   string   `json:"state"`
	Status  string   `json:"status"`
}

const readPage = `JSON.stringify({
	columns: [...document.querySelectorAll("#table th")].map((e) => e.textContent),
	cells: [...document.querySelectorAll("#table td")].map((e) => e.textContent),
	mean: document.querySelector("#chart svg")?.dataset.mean ?? "",
	peak: document.querySelector("#chart svg")?.dataset.peak ?? "",
	command: document.getElementById("command").textContent,
	state: document.body.dataset.state,
	status: document.getElementById("status").textContent,
})`

// engine runs what args say as the command does, and returns the page it
// should show: the table's cells and the chart's series.
func engine(t *testing.T, args []string) page {
	t.Helper()
	o, err := parseArgs(append(slices.Clone(args), "-chart", "none", "-quiet"), new(strings.Builder))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := sweep(context.Background(), o, func() {})
	if err != nil || len(rows) != 1 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	c := chartOf(rows[0])
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
	cols := tableColumns(rows[0])
	return page{Columns: cols, Cells: cells(rows[0], cols, true), Mean: join(c.Mean), Peak: join(c.Peak), Command: commandLine(args)}
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
func TestExplorerInABrowser(t *testing.T) {
	t.Parallel()
	path := chromium(t)
	srv := httptest.NewServer(newExplorer().handler())
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
