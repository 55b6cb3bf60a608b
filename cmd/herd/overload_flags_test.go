package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The overload server's model and policies are flags of overload alone,
// checked, and fields of the page.
func TestOverloadServerFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-scenario", "overload", "-server", "fast"}, `-server "fast" is not realistic or steady`},
		{[]string{"-scenario", "overload", "-queue", "random"}, `-queue "random" is not fifo or lifo`},
		{[]string{"-scenario", "overload", "-queue-limit", "-1"}, "-queue-limit is -1"},
		{[]string{"-scenario", "occ", "-queue", "lifo"}, "-queue sets overload, which -scenario occ does not run"},
		{[]string{"-scenario", "outage", "-drop-expired"}, "-drop-expired sets overload"},
	} {
		code, _, errs := runCmd(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, %q; want 2 saying %q", tc.args, code, errs, tc.want)
		}
	}
	e := newExplorer()
	e.overloadServer = quickServer
	srv := httptest.NewServer(e.handler())
	defer srv.Close()
	var fifo, bounded runResult
	if code := getJSON(t, srv, "/api/run?scenario=overload&clients=3&strategies=none", &fifo); code != http.StatusOK {
		t.Fatalf("%d", code)
	}
	if code := getJSON(t, srv, "/api/run?scenario=overload&clients=3&strategies=none&queue-limit=20&drop-expired=true&server=steady", &bounded); code != http.StatusOK {
		t.Fatalf("%d", code)
	}
	if !strings.Contains(bounded.Command, "-queue-limit 20 -drop-expired=true") || bounded.Rows[0].Values["goodput"] <= 2*fifo.Rows[0].Values["goodput"] ||
		bounded.Rows[0].Values["server_refused"] == 0 || fifo.Rows[0].Values["p99_p99"] == 0 {
		t.Errorf("command %q; goodput %v with a bounded queue, %v without; refused %v",
			bounded.Command, bounded.Rows[0].Values["goodput"], fifo.Rows[0].Values["goodput"], bounded.Rows[0].Values["server_refused"])
	}
}
