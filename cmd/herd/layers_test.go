package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// -scenario layers prints a row per strategy, with the hand calculation's
// amplification while the dependency is down, and refuses what it cannot
// run.
func TestLayersCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-scenario", "layers", "-strategies", "retry,signal", "-rate", "10"}, &out, &errOut, false); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n")[1:] {
		f := strings.Fields(line)
		rows[f[1]] = f
	}
	if rows["retry"][5] != "27.000" || rows["signal"][5] != "3.000" {
		t.Errorf("down_x: retry %v, signal %v; want 27 and 3:\n%s", rows["retry"], rows["signal"], out.String())
	}
	for _, args := range [][]string{
		{"-scenario=layers", "-strategies", "breaker"},
		{"-scenario", "layers", "-tiers", "9"},
		{"-scenario", "layers", "-tries", "0"},
		{"-scenario", "layers", "extra"},
	} {
		errOut.Reset()
		if code := run(context.Background(), args, &out, &errOut, false); code != 2 || errOut.Len() == 0 {
			t.Errorf("%v: exit %d, %q; want 2 and a message", args, code, errOut.String())
		}
	}
}
