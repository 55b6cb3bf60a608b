package herd_test

import (
	"os"
	"strings"
	"testing"

	"github.com/herdsafe/backoff/herd"
)

// The figures the doc comment of the Overload scenario's defaults gives
// are those the code computes.
func TestOverloadDefaultsDoc(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("overload_config.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := strings.Cut(string(src), "const (")
	doc = strings.Join(strings.Fields(strings.ReplaceAll(doc[strings.Index(doc, "// Defaults of the Overload scenario."):], "//", "")), " ")
	var s herd.Server
	delay := herd.Delay{Mean: herd.DefaultDelayMean, StdDev: herd.DefaultDelayStdDev}
	for _, want := range []string{
		"10,000 calls a second", "40 ms: the no-load latency", "With 10 clients", "with 40 calls in flight per client",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the doc comment lacks %q: %s", want, doc)
		}
	}
	if s.Capacity() != 10_000 || s.NoLoad(delay).Milliseconds() != 40 || s.HealthyConcurrency(10, delay) != 40 {
		t.Errorf("capacity %v, no-load %v, healthy concurrency %d: the doc comment says 10,000, 40 ms and 40",
			s.Capacity(), s.NoLoad(delay), s.HealthyConcurrency(10, delay))
	}
}
