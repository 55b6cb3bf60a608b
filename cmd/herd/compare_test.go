package main

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// A link is the whole truth of a run: parameters the page does not know
// (utm_source, fbclid) are left out, a scenario alone runs with the
// page's fleet, and capacity and delay come back in the form.
func TestExplorerLinks(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newExplorer().handler())
	defer srv.Close()
	var plain, tagged runResult
	q := "scenario=shed&clients=30&strategies=full&capacity=5&delay=20ms&max-calls=50"
	if code := getJSON(t, srv, "/api/run?"+q, &plain); code != http.StatusOK {
		t.Fatalf("%s: %d", q, code)
	}
	if code := getJSON(t, srv, "/api/run?utm_source=news&"+q+"&fbclid=IwAR0x", &tagged); code != http.StatusOK {
		t.Fatalf("with utm_source and fbclid: %d", code)
	}
	if strings.Join(plain.Cells, ",") != strings.Join(tagged.Cells, ",") || plain.Command != tagged.Command {
		t.Errorf("the extra parameters changed the run: %q against %q", tagged.Cells, plain.Cells)
	}
	if plain.Form["capacity"] != "5" || plain.Form["delay"] != "20ms" || !strings.Contains(plain.Command, "-capacity 5") {
		t.Errorf("form %v, command %q: capacity and delay lost", plain.Form, plain.Command)
	}
	var occ runResult
	if code := getJSON(t, srv, "/api/run?scenario=occ&strategies=full&max-calls=20", &occ); code != http.StatusOK || occ.Form["clients"] != "100" || len(occ.Rows) != 1 {
		t.Fatalf("?scenario=occ: %d, form %v", code, occ.Form)
	}
}

// Compare mode: several strategies and fleet sizes in one run, a row
// each, with the spread over several seeds; the mean is the command's
// -runs mean.
func TestExplorerCompares(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newExplorer().handler())
	defer srv.Close()
	q := url.Values{"scenario": {"restart"}, "clients": {"10,40"}, "strategies": {"full,no-jitter"}, "runs": {"3"}, "max-calls": {"200"}}
	var res runResult
	if code := getJSON(t, srv, "/api/run?"+q.Encode(), &res); code != http.StatusOK {
		t.Fatalf("%d", code)
	}
	if len(res.Rows) != 4 || res.Runs != 3 {
		t.Fatalf("%d rows, %d runs; want 4 and 3", len(res.Rows), res.Runs)
	}
	want := engineRows(t, "-scenario", "restart", "-clients", "10,40", "-strategies", "full,no-jitter", "-runs", "3", "-max-calls", "200")
	calls := indexOf(res.Columns, "calls")
	for i, r := range res.Rows {
		if r.Strategy != want[i].Strategy || r.Clients != want[i].Clients || r.Cells[calls] != cell(want[i], "calls", true) {
			t.Errorf("row %d: %s %d %s; the command's %s %d %s", i, r.Strategy, r.Clients, r.Cells[calls], want[i].Strategy, want[i].Clients, cell(want[i], "calls", true))
		}
		lo, _ := strconv.ParseFloat(r.Low[calls], 64)
		hi, _ := strconv.ParseFloat(r.High[calls], 64)
		if len(r.Low) != len(res.Columns) || !(lo <= r.Values["calls"] && r.Values["calls"] <= hi) || len(r.Chart.Mean) == 0 {
			t.Errorf("row %d: calls %v outside its spread [%v, %v], or no chart", i, r.Values["calls"], lo, hi)
		}
	}
	if len(res.Headers) != len(res.Columns) || res.Headers[calls] != "calls sent" {
		t.Errorf("headers %q", res.Headers)
	}
}

// An error comes in the page's words, with the field it is about.
func TestExplorerErrorsAtTheirField(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newExplorer().handler())
	defer srv.Close()
	for q, want := range map[string]failure{
		"scenario=outage&clients=5&rate=abc":                               {Field: "rate", Error: `user calls per client per second: "abc" is not a number`},
		"scenario=outage&clients=5&down=5":                                 {Field: "down", Error: `down for: "5" is not a duration`},
		"scenario=outage&clients=5&tries=50":                               {Field: "tries", Error: "-tries is 50"},
		"scenario=outage&clients=5&healthy=70m":                            {Field: "healthy", Error: "the 1h0m0s a simulation runs at most"},
		"scenario=outage&clients=5&strategies=breaker(failures=0)":         {Field: "strategies", Guard: "breaker", Setting: "failures", Error: "breaker: failures was given 0"},
		"scenario=outage&clients=5&strategies=token-bucket(tokens=-1)":     {Field: "strategies", Guard: "token-bucket", Setting: "tokens", Error: "token-bucket: tokens is outside"},
		"scenario=outage&clients=5&strategies=throttle(k=0)":               {Field: "strategies", Guard: "throttle", Setting: "k", Error: "throttle: k: must be"},
		"scenario=outage&clients=2001":                                     {Field: "clients", Error: "2000 clients at most"},
		"scenario=occ&clients=10&max-calls=9223372036854775807":            {Field: "max-calls"},
		"scenario=occ&clients=10&strategies=full&runs=11":                  {Field: "runs"},
		"scenario=occ&clients=10&strategies=" + strings.Repeat("x", 10000): {Field: "strategies", Error: "…"},
	} {
		var f failure
		code := getJSON(t, srv, "/api/run?"+q, &f)
		if code != http.StatusBadRequest || f.Field != want.Field || f.Guard != want.Guard || f.Setting != want.Setting || !strings.Contains(f.Error, want.Error) || len(f.Error) > 400 {
			t.Errorf("%.80s: %d %+v; want 400 at %q (guard %q) saying %q", q, code, f, want.Field, want.Guard, want.Error)
		}
		if strings.Contains(f.Error, "flag -") || strings.Contains(f.Error, "Horizon") || strings.Contains(f.Error, "With") || strings.Contains(f.Error, "BackOffs") && want.Guard != "" {
			t.Errorf("%.80s: %q speaks the command line or Go", q, f.Error)
		}
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// engineRows runs what args say as the command does and returns its rows.
func engineRows(t *testing.T, args ...string) []row {
	t.Helper()
	o, err := parseArgs(append(args, "-chart", "none", "-quiet"), new(strings.Builder))
	if err != nil {
		t.Fatal(err)
	}
	o.workers = 1
	rows, err := sweep(t.Context(), o, func() {})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
