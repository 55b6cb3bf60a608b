package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// passingResult is a result of a run in which everything held.
func passingResult() *result {
	cfg := defaults()
	res := &result{
		cfg:  cfg,
		load: 30 * time.Second, drain: 2 * time.Second, close: time.Second,
		made: 1000, goroutinesBefore: 3, goroutinesAfter: 3,
	}
	res.counts.Started, res.counts.Completed = 100, 90
	res.counts.Failed[causeExhausted] = 6
	res.counts.Failed[causeBreakerOpen] = 4
	for i := range 10 {
		res.samples = append(res.samples, sample{at: time.Duration(i) * 4 * time.Second, inUse: 10 << 20, live: 5 << 20})
	}
	return res
}

func TestReportPass(t *testing.T) {
	var out bytes.Buffer
	res := passingResult()
	report(&out, res)
	text := out.String()
	for _, want := range []string{
		"mode transport, 10000 callers, 30s, seed 1",
		"calls: started 100, completed 90 (90.0%), failed 10 (10.0%)",
		"exhausted", "breaker open",
		"accounting: started 100 = completed 90 + failed 10: every call accounted for",
		"goroutines: before 3",
		"flat within 0.0 MiB",
		"\nPASS\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "bulkhead full") {
		t.Errorf("the report lists a cause with no failure:\n%s", text)
	}
	if f := res.failures(); len(f) != 0 {
		t.Errorf("failures of a passing run: %q", f)
	}
}

func TestReportFailures(t *testing.T) {
	tests := []struct {
		name string
		edit func(*result)
		want string
	}{
		{"a call unaccounted for", func(r *result) { r.counts.Started++ }, "accounting: 101 calls started"},
		{"a leak", func(r *result) {
			r.goroutinesAfter = 5
			r.leaked = []stackGroup{{count: 2, state: "select", stack: "net/http.(*persistConn).readLoop(...)"}}
		}, "goroutines: 5 after, 3 before"},
		{"stuck calls", func(r *result) { r.stuck = []stackGroup{{count: 1, state: "select", stack: "x"}} }, "calls still in flight"},
		{"calls that never returned", func(r *result) { r.unfinished = true }, "after their contexts were cancelled"},
		{"a broken promise", func(r *result) { r.counts.Failed[causeOther]++; r.counts.Started++ }, "break a promise"},
		{"an Attempts mismatch", func(r *result) { r.counts.Mismatch = 2 }, "2 calls whose *backoff.Error.Attempts differs"},
		{"too many attempts", func(r *result) { r.counts.OverTries = 1 }, "more than -max-tries"},
		{"a guard's problem", func(r *result) { r.problems = []string{"the bulkhead still holds 1 slots"} }, "the bulkhead still holds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := passingResult()
			tt.edit(res)
			var out bytes.Buffer
			report(&out, res)
			text := out.String()
			if !strings.Contains(text, "\nFAIL\n") || !strings.Contains(text, tt.want) {
				t.Errorf("want FAIL with %q:\n%s", tt.want, text)
			}
			if strings.Contains(text, "PASS") {
				t.Errorf("a failed run reports PASS:\n%s", text)
			}
		})
	}
}

func TestReportStacks(t *testing.T) {
	res := passingResult()
	for i := range maxStacks + 2 {
		res.leaked = append(res.leaked, stackGroup{count: 1, state: "select", stack: "f" + strings.Repeat("x", i) + "(...)\n\t/a.go:1"})
	}
	res.goroutinesAfter = res.goroutinesBefore + len(res.leaked)
	var out bytes.Buffer
	report(&out, res)
	text := out.String()
	if !strings.Contains(text, "goroutines leaked: 12, in 12 stacks") || !strings.Contains(text, "... 2 more stacks") {
		t.Errorf("the leak's stacks:\n%s", text)
	}
	if !strings.Contains(text, "    \t/a.go:1") {
		t.Errorf("the frames are not printed:\n%s", text)
	}
}
