package amqpretry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every Go block of docs/brokers.md is a piece of an Example function of
// this module or of natsretry, line for line (indentation aside), so
// that it compiles and, against the tests' servers, runs.
func TestGuideGoBlocksAreExamples(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "docs", "brokers.md"))
	if err != nil {
		t.Fatal(err)
	}
	var examples string
	for _, f := range []string{"example_test.go", filepath.Join("..", "natsretry", "example_test.go")} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		examples += trimLines(string(b)) + "\n"
	}
	blocks := strings.Split(string(guide), "```go\n")[1:]
	if len(blocks) < 4 {
		t.Fatalf("found %d Go blocks in docs/brokers.md; the extraction is broken", len(blocks))
	}
	for _, b := range blocks {
		code, _, ok := strings.Cut(b, "```")
		if !ok {
			t.Fatalf("a Go block is not closed: %.60q", b)
		}
		if !strings.Contains(examples, trimLines(code)) {
			t.Errorf("this Go block of docs/brokers.md is in no Example function:\n%s", code)
		}
	}
}

// trimLines trims the spaces around every line of s.
func trimLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n")
}
