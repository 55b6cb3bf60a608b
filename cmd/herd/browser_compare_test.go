package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browser starts Chromium for a test and returns its first tab's
// context, bounded by two minutes.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromium(t)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1100, 1500))
	t.Cleanup(cancelAlloc)
	bctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	if err := chromedp.Do(bctx); err != nil { // starts the browser, with no deadline
		t.Fatal(err)
	}
	ctx, cancelRun := context.WithTimeout(bctx, 2*time.Minute)
	t.Cleanup(cancelRun)
	return ctx
}

// runsDone waits until the page has ended n runs.
func runsDone(n int) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Poll[bool](fmt.Sprintf(`Number(document.body.dataset.runs) >= %d`, n), chromedp.WithPollingTimeout(time.Minute))(ctx, tg)
		return err
	})
}

// clearField empties the field of that id, as a user selecting its text
// and deleting it does, with the events that fires.
func clearField(id string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const e = document.getElementById(%q); e.value = "";
			e.dispatchEvent(new Event("input", { bubbles: true })); return true; })()`, id))(ctx, tg)
		return err
	})
}

// eval evaluates expr in the tab of ctx.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// The explorer's compare mode, two tabs at once, a link with parameters
// of others, an error shown at its field, History, the guard list's keys
// and a phone's width, in a real browser.
func TestExplorerInABrowserCompares(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newExplorer().handler())
	defer srv.Close()
	tabA := browser(t)
	tabB, cancelB := chromedp.NewContext(tabA)
	defer cancelB()

	outage := url.Values{"scenario": {"outage"}, "clients": {"10"}, "strategies": {"token-bucket+breaker(open=1s)"},
		"rate": {"25"}, "warmup": {"4s"}, "down": {"4s"}, "degraded": {"2s"}, "healthy": {"3s"}}
	// Tab A: a shared link, with a campaign's and a network's parameters.
	linkA := srv.URL + "/?utm_source=newsletter&" + outage.Encode() + "&fbclid=IwAR0abc"
	// Tab B: a comparison of two strategies on two fleet sizes over two seeds.
	linkB := srv.URL + "/?scenario=restart&clients=10,40&strategies=full,no-jitter&runs=2&max-calls=200"
	errs := make(chan error, 2)
	go func() { errs <- chromedp.Do(tabA, chromedp.Navigate(linkA), runsDone(1)) }()
	go func() { errs <- chromedp.Do(tabB, chromedp.Navigate(linkB), runsDone(1)) }()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// Both tabs' runs ended, neither cancelled by the other.
	for name, ctx := range map[string]context.Context{"A": tabA, "B": tabB} {
		if st := eval[string](t, ctx, `document.body.dataset.state + ": " + document.getElementById("status").textContent`); !strings.HasPrefix(st, "done") {
			t.Fatalf("tab %s: %s", name, st)
		}
	}
	flags := []string{"-scenario", "outage", "-clients", "10", "-strategies", "token-bucket+breaker(open=1s)",
		"-rate", "25", "-warmup", "4s", "-down", "4s", "-degraded", "2s", "-healthy", "3s"}
	want := engine(t, flags)
	if got := eval[[]string](t, tabA, `[...document.querySelectorAll("#table td")].map((e) => e.textContent)`); !slices.Equal(got, want.Cells) {
		t.Errorf("tab A, a link with extra parameters, shows\n%q\nthe engine gives\n%q", got, want.Cells)
	}
	// Tab B draws its measure against the fleet size, a line per strategy
	// with a legend, and a table row per strategy and size.
	b := eval[string](t, tabB, `[document.querySelector("#chart svg").dataset.kind, document.querySelector("#chart .legend").dataset.names,
		document.querySelectorAll("#chart path.mean").length, document.querySelectorAll("#table tbody tr").length,
		document.querySelectorAll("#table .spread").length > 0, document.querySelector("#chart svg").getAttribute("aria-labelledby"),
		document.getElementById("chart-name").textContent.length > 0].join(" ")`)
	if b != "sweep full|no-jitter 2 4 true chart-name true" {
		t.Errorf("tab B (kind, legend, lines, rows, spread shown, accessible name) reads %q", b)
	}

	// In tab A, a strategy ticked for comparison runs next to the form's,
	// a line each in one chart with a legend.
	if err := chromedp.Do(tabA, chromedp.Click(chromedp.CSS(`#compare-retry`)), chromedp.Click(chromedp.CSS(`#run`)), runsDone(2)); err != nil {
		t.Fatal(err)
	}
	a := eval[string](t, tabA, `[document.body.dataset.state, document.querySelector("#chart .legend")?.dataset.names,
		document.querySelectorAll("#chart path.mean").length, document.querySelectorAll("#table tbody tr").length,
		[...document.querySelectorAll("#chart .axis-title")].length].join(" ")`)
	if a != "done token-bucket+breaker(open=1s)|retry 2 4 2" { // two tables of two rows
		t.Errorf("tab A compared (state, legend, lines, rows, axis titles) reads %q", a)
	}
	// Back goes to the previous run, the link's.
	if err := chromedp.Do(tabA, chromedp.NavigateBack(), runsDone(3)); err != nil {
		t.Fatal(err)
	}
	if back := eval[string](t, tabA, `location.search.includes("retry") + " " + document.querySelectorAll("#chart path.mean").length`); back != "false 1" {
		t.Errorf("after Back, (the compared strategy in the address, lines drawn) %q; want the link's run", back)
	}

	// ArrowDown through the guard list adds nothing: the button does.
	if err := chromedp.Do(tabA, chromedp.Focus(chromedp.CSS(`#add-guard`)), chromedp.KeyEvent("\ue015\ue015\ue015")); err != nil {
		t.Fatal(err)
	}
	if n := eval[int](t, tabA, `document.querySelectorAll("#guards .guard").length`); n != 2 {
		t.Errorf("ArrowDown in the guard list left %d guards, want 2", n)
	}

	// An error is shown at its field, in the page's words, over the old
	// result, dimmed.
	rate := chromedp.CSS(`#rate`)
	if err := chromedp.Do(tabA, clearField("rate"), chromedp.SendKeys(rate, "abc"), chromedp.Click(chromedp.CSS(`#run`)), runsDone(4)); err != nil {
		t.Fatal(err)
	}
	e := eval[string](t, tabA, `[document.body.dataset.state, document.getElementById("rate").getAttribute("aria-invalid"),
		document.getElementById(document.getElementById("rate").getAttribute("aria-describedby"))?.textContent,
		document.getElementById("result").classList.contains("stale"), document.querySelectorAll("#table td").length > 0].join("|")`)
	if e != `error|true|user calls per client per second: "abc" is not a number|true|true` {
		t.Errorf("an error (state, marked, its words, old result dimmed, still there) reads %q", e)
	}
	// A link whose first run fails keeps its guards in the form.
	bad := outage
	bad.Set("rate", "abc")
	if err := chromedp.Do(tabA, chromedp.Navigate(srv.URL+"/?"+bad.Encode()), runsDone(1)); err != nil {
		t.Fatal(err)
	}
	if g := eval[string](t, tabA, `document.body.dataset.state + " " + document.getElementById("guard-1-open")?.value`); g != "error 1s" {
		t.Errorf("a link whose first run fails: (state, the breaker's open) %q, want its guards kept", g)
	}

	// The downloads: the table as CSV, a line per row; the chart as SVG,
	// which an image (and so the PNG's canvas) reads.
	if err := chromedp.Do(tabA, chromedp.Navigate(linkA), runsDone(1)); err != nil {
		t.Fatal(err)
	}
	dl, err := chromedp.Run(tabA, chromedp.Evaluate[string](`new Promise((ok) => {
		const lines = csv(last).trim().split("\n");
		const img = new Image();
		img.onload = () => ok([lines.length, lines[0].startsWith("scenario,strategy,clients"), chartSVG().startsWith("<svg"), img.width > 0].join(" "));
		img.onerror = () => ok("the SVG does not load as an image");
		img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(chartSVG());
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if dl != "2 true true true" {
		t.Errorf("downloads (CSV lines, its header, an SVG, loads as an image) %q", dl)
	}
	// A reload keeps an edit not yet run.
	if err := chromedp.Do(tabA, clearField("rate"), chromedp.SendKeys(rate, "30"), chromedp.Reload(), runsDone(1)); err != nil {
		t.Fatal(err)
	}
	if v := eval[string](t, tabA, `document.getElementById("rate").value + " " + location.search.includes("rate=25")`); v != "30 true" {
		t.Errorf("after a reload, the rate field and the address read %q; want the edit kept, the run the link's", v)
	}
	// Pushback offers no backoff, base or cap, which change nothing
	// there, and offers its capacity.
	if err := chromedp.Do(tabA, chromedp.SetValue(chromedp.CSS(`#scenario`), "pushback"),
		chromedp.WaitNotVisible(chromedp.CSS(`#backoff`)), chromedp.WaitNotVisible(chromedp.CSS(`#backoff-base`)),
		chromedp.WaitVisible(chromedp.CSS(`#capacity`)), chromedp.WaitVisible(chromedp.CSS(`#delay`))); err != nil {
		t.Fatal(err)
	}

	// A phone: nothing wider than the screen, the chart within the first
	// screen, its labels readable.
	phone, cancelPhone := chromedp.NewContext(tabA)
	defer cancelPhone()
	if err := chromedp.Do(phone, chromedp.EmulateViewport(390, 844), chromedp.Navigate(linkA), runsDone(1)); err != nil {
		t.Fatal(err)
	}
	p := eval[string](t, phone, `[document.documentElement.scrollWidth <= 390,
		document.getElementById("table").scrollWidth <= document.getElementById("table").clientWidth,
		document.querySelector("#chart svg").getBoundingClientRect().top < 844,
		Math.min(...[...document.querySelectorAll("#chart svg text")].map((e) => e.getBoundingClientRect().height)) >= 10].join(" ")`)
	if p != "true true true true" {
		t.Errorf("at 390×844 (no sideways scroll, nor in the table, the chart on the first screen, labels 10 px at least) %q", p)
	}
}
