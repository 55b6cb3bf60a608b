package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// What a hostile user gives the command is refused in few words: a
// setting given twice, a fleet or a number of tries past their bounds,
// pages of input, which the error quotes cut short.
func TestHostileFlags(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 10_000)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-clients", "1000000"}, "give whole numbers in [1, 100000]"},
		{[]string{"-scenario", "outage", "-tries", "11"}, "-tries is 11; a user call makes from 1 to 10 attempts"},
		{[]string{"-scenario", "outage", "-strategies", "breaker(open=5s,open=6s)"}, "-strategies: breaker: open is given twice"},
		{[]string{"-scenario", "occ", "-strategies", "full(base=1ms,base=2ms)"}, "-strategies: full: base is given twice"},
		{[]string{"-clients", long}, "…"},
		{[]string{"-strategies", long}, "…"},
		{[]string{"-strategies", "breaker(open=" + long + ")"}, "…"},
		{[]string{"-seed", long}, "…"},
		{[]string{"-" + long}, "…"},
		{[]string{"-scenario", long}, "…"},
		{[]string{"-arrivals", long}, "…"},
		{[]string{"-format", long}, "…"},
		{[]string{"-scenario", "occ", "extra" + long}, "…"},
	} {
		code, _, errs := runCmd(t, tc.args...)
		first, _, _ := strings.Cut(errs, "\n")
		if code != 2 || !strings.Contains(first, tc.want) || len(first) > 400 {
			t.Errorf("%.60q: exit %d, %d bytes: %.300q; want 2 saying %q in 400 bytes at most", tc.args, code, len(first), first, tc.want)
		}
	}
	// An error in a guard's settings is about those settings: the list of
	// the BackOffs, which a misspelt kind may have meant, is no help.
	for _, s := range []string{"breaker(open=5s,open=6s)", "breaker(opne=5s)", "token-bucket+breaker(open=x)", "combined(open=1s)"} {
		_, _, errs := runCmd(t, "-scenario", "outage", "-strategies", s)
		if strings.Contains(errs, "BackOffs") || errs == "" {
			t.Errorf("-strategies %q: %q; want no list of BackOffs", s, errs)
		}
	}
	if _, _, errs := runCmd(t, "-strategies", "fibonacci"); !strings.Contains(errs, "the BackOffs are") {
		t.Errorf("-strategies fibonacci: %q; want the BackOffs listed", errs)
	}
}

// The bulkhead guard is a strategy of outage alone, on the command line
// and on the page, as well as a strategy of overload.
func TestBulkheadAlone(t *testing.T) {
	t.Parallel()
	o, err := parseArgs([]string{"-scenario", "outage", "-strategies", "bulkhead", "-chart", "none"}, new(strings.Builder))
	if err != nil || len(o.outageStrategies) != 1 || o.outageStrategies[0].Name != "bulkhead" {
		t.Fatalf("-scenario outage -strategies bulkhead: %v", err)
	}
	o, err = parseArgs([]string{"-scenario", "outage,overload", "-strategies", "bulkhead", "-chart", "none"}, new(strings.Builder))
	if err != nil || len(o.outageStrategies) != 1 || len(o.overloadStrategies) != 1 {
		t.Fatalf("-scenario outage,overload -strategies bulkhead: %v", err)
	}
	srv := httptest.NewServer(newExplorer().handler())
	defer srv.Close()
	var res runResult
	if code := getJSON(t, srv, "/api/run?scenario=outage&clients=5&strategies=bulkhead&warmup=1s&down=1s&degraded=1s&healthy=2s", &res); code != http.StatusOK || len(res.Guards) != 1 || res.Guards[0].Kind != "bulkhead" {
		t.Fatalf("the page, outage with a bulkhead alone: %d %+v", code, res.Guards)
	}
}

// The page's bounds hold whatever the numbers: clients × max-calls does
// not wrap around, and a fleet too large is refused as such, whatever
// else the query lacks.
func TestExplorerBoundsHold(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newExplorer().handler())
	defer srv.Close()
	for q, want := range map[string]string{
		"scenario=occ&clients=2000&max-calls=1152921504606846976&strategies=full": "clients × max-calls is over 2000000",
		"scenario=occ&clients=2000&max-calls=9223372036854775807&strategies=full": "clients × max-calls is over 2000000",
		"scenario=outage&clients=2001":                                            "2000 clients at most",
		"scenario=overload&clients=401":                                           "overload with 400 clients at most",
	} {
		var f failure
		if code := getJSON(t, srv, "/api/run?"+q, &f); code != http.StatusBadRequest || !strings.Contains(f.Error, want) {
			t.Errorf("%s: %d %q, want 400 saying %q", q, code, f.Error, want)
		}
	}
}

// In pushback the BackOff's base and cap change nothing (each client
// waits the Retry-After): the command refuses them there, and the page
// marks the field.
func TestPushbackTakesNoBaseOrCap(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"-base", "-cap"} {
		code, _, errs := runCmd(t, "-scenario", "pushback", flag, "10s")
		if code != 2 || !strings.Contains(errs, flag+" sets occ, restart, shed, which -scenario pushback does not run") {
			t.Errorf("-scenario pushback %s 10s: exit %d, %q", flag, code, errs)
		}
	}
	srv := httptest.NewServer(newExplorer().handler())
	defer srv.Close()
	var f failure
	if code := getJSON(t, srv, "/api/run?scenario=pushback&clients=10&strategies=full&base=1s", &f); code != http.StatusBadRequest || f.Field != "base" {
		t.Errorf("the page, pushback with a base: %d %+v; want 400 at base", code, f)
	}
}
