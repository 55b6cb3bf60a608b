package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
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
		"scenario=outage&bogus=1":                                `"bogus" is not a setting`,
		"scenario=outage&clients=3000&strategies=retry":          "2000 clients at most",
		"scenario=outage,occ&clients=10":                         "one scenario at a time",
		"scenario=outage&clients=10,20":                          "one fleet size at a time",
		"scenario=outage&clients=10&strategies=retry,breaker":    "one strategy at a time",
		"scenario=outage&clients=2000&rate=100&strategies=retry": "user calls; the page runs",
		"scenario=outage&strategies=breaker(opne=1s)":            `no setting "opne"`,
		"scenario=outage&clients=10&clients=20":                  "given 2 times",
	} {
		var f failure
		if code := getJSON(t, srv, "/api/run?"+q, &f); code != http.StatusBadRequest || !strings.Contains(f.Error, want) {
			t.Errorf("%s: %d %q, want 400 saying %q", q, code, f.Error, want)
		}
	}
}

// A run asked for while another is in progress cancels it: the first
// answers 409 at once, the second runs. A run that takes longer than its
// bound is stopped and answers 503.
func TestExplorerOneRunAtATime(t *testing.T) {
	t.Parallel()
	e := newExplorer()
	srv := httptest.NewServer(e.handler())
	defer srv.Close()
	long := "/api/run?scenario=outage&clients=2000&rate=20&warmup=60s&down=5s&degraded=5s&healthy=5s&strategies=retry"
	first := make(chan int, 1)
	go func() {
		res, err := http.Get(srv.URL + long)
		if err != nil {
			first <- 0
			return
		}
		res.Body.Close()
		first <- res.StatusCode
	}()
	// Wait until the first run holds the explorer.
	for {
		e.mu.Lock()
		busy := e.cancel != nil
		e.mu.Unlock()
		if busy {
			break
		}
		select {
		case code := <-first:
			t.Fatalf("the long run ended with %d before the second began", code)
		case <-time.After(time.Millisecond):
		}
	}
	var res runResult
	if code := getJSON(t, srv, "/api/run?scenario=restart&clients=20&strategies=full", &res); code != http.StatusOK || len(res.Cells) == 0 {
		t.Fatalf("the second run: %d %+v", code, res)
	}
	if code := <-first; code != http.StatusConflict {
		t.Fatalf("the first run answered %d, want 409", code)
	}

	e.timeout = time.Millisecond
	var f failure
	if code := getJSON(t, srv, long, &f); code != http.StatusServiceUnavailable || !strings.Contains(f.Error, "too long") {
		t.Fatalf("a run over its bound: %d %q, want 503", code, f.Error)
	}
}
