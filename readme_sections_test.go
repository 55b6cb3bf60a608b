package backoff

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// readmeHome is where a section README.md once held lives now: the file,
// and the heading it has there when it was renamed in the move.
type readmeHome struct {
	heading string // the heading README.md had, without its #s
	file    string // the file that holds the section now
	now     string // its heading there, if not the same
}

// readmeHomes lists every heading README.md had when it held the whole
// documentation, with the file that holds each section now. The README
// became a map; the sections moved, whole, into the guides of docs/.
var readmeHomes = []readmeHome{
	{"herdsafe/backoff", "README.md", ""},
	{"See what retrying does to a fleet", "docs/simulator.md", ""},
	{"When the dependency goes down", "docs/simulator.md", ""},
	{"When the server has more work than it can do", "docs/simulator.md", ""},
	{"The explorer", "docs/simulator.md", ""},
	{"Why", "README.md", ""},
	{"Install", "README.md", ""},
	{"Quick start", "README.md", ""},
	{"Quick start", "docs/retrying.md", "Retry, Do and a Retrier"}, // its whole text, past the first example
	{"Coming from cenkalti/backoff", "docs/cenkalti.md", ""},
	{"Handling errors", "docs/retrying.md", ""},
	{"Composing policies", "docs/policies.md", ""},
	{"Guards", "docs/policies.md", ""},
	{"Circuit breaker", "docs/policies.md", ""},
	{"Circuit breaker: slow calls", "docs/policies.md", ""},
	{"Circuit breaker: manual control", "docs/policies.md", ""},
	{"Bulkheads", "docs/policies.md", ""},
	{"Rate limiter", "docs/policies.md", ""},
	{"Adaptive concurrency limiter", "docs/policies.md", ""},
	{"Retry budget and adaptive throttling", "docs/policies.md", ""},
	{"Chaos and hedging", "docs/policies.md", ""},
	{"Attempt limits per kind of error", "docs/policies.md", ""},
	{"Classification: what is worth retrying", "docs/retrying.md", ""},
	{"The context decides, not the error", "docs/retrying.md", ""},
	{"Jitter kinds", "docs/retrying.md", ""},
	{"A loop for supervisors", "docs/retrying.md", ""},
	{"A ticker", "docs/retrying.md", ""},
	{"Instrumentation", "docs/telemetry.md", ""},
	{"Observability: OpenTelemetry and Prometheus", "docs/telemetry.md", ""},
	{"Callbacks that panic or block", "docs/retrying.md", ""},
	{"Testing your own code", "docs/testing.md", ""},
	{"Concurrency", "docs/retrying.md", ""},
	{"Retrying HTTP requests: `httpretry`", "docs/http.md", ""},
	{"Guards around and inside the Transport", "docs/http.md", ""},
	{"Retrying gRPC calls", "docs/grpc.md", ""},
	{"Retrying database work", "README.md", ""},     // a summary of docs/databases.md
	{"Brokers: NATS and RabbitMQ", "README.md", ""}, // a summary of docs/brokers.md
	{"Telling clients to back off", "docs/shedding.md", ""},
	{"The wait a refusal asks for", "docs/shedding.md", ""},
	{"HTTP: `httpshed`", "docs/shedding.md", ""},
	{"The loop closed", "docs/simulator.md", ""},
	{"gRPC servers", "docs/shedding.md", ""},
	{"Services that call services", "docs/shedding.md", ""},
	{"Sharing guards across a fleet", "docs/fleet.md", ""},
	{"Performance", "docs/performance.md", ""},
	{"Reliability", "docs/performance.md", ""},
	{"Repository layout", "README.md", "Packages and modules"},
	{"License", "README.md", ""},
}

var readmeHeading = regexp.MustCompile(`^#{1,6} (.+?)\s*$`)

// readmeHeadings returns the headings of a Markdown file, without their
// #s, leaving out the lines of fenced blocks.
func readmeHeadings(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash(name))
	if err != nil {
		t.Fatal(err)
	}
	var hs []string
	fenced := false
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if m := readmeHeading.FindStringSubmatch(line); m != nil && !fenced {
			hs = append(hs, m[1])
		}
	}
	return hs
}

// Every section README.md held when it was the whole documentation has a
// home: the heading is in the file readmeHomes names for it.
func TestReadmeSectionsHaveAHome(t *testing.T) {
	if len(readmeHomes) < 48 {
		t.Fatalf("%d headings listed; README.md had 48", len(readmeHomes))
	}
	for _, h := range readmeHomes {
		want := h.heading
		if h.now != "" {
			want = h.now
		}
		found := false
		for _, got := range readmeHeadings(t, h.file) {
			if got == want {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("the section %q of the README is to be in %s under %q; that file has no such heading", h.heading, h.file, want)
		}
	}
}

// The README is the map: at most 400 lines, opening with the two commands
// a newcomer runs, exactly as written, and ending with the License.
func TestReadmeIsAMap(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n > 400 {
		t.Errorf("README.md has %d lines; the map holds 400 at most, the rest belongs in docs/", n)
	}
	commands := "```sh\ngo run ./cmd/herd                    # see what retrying does to a fleet (the herd simulator)\n" +
		"go test -race -count=1 work          # run the tests of every module of the workspace\n```\n"
	if i := strings.Index(readme, commands); i < 0 || i > 200 {
		t.Errorf("README.md does not open with the two commands, as written:\n%s", commands)
	}
	hs := readmeHeadings(t, "README.md")
	if len(hs) == 0 || hs[len(hs)-1] != "License" {
		t.Errorf("README.md's last section is not the License")
	}
	// Every package and module of the repository has its line and link
	// in the README's table.
	for _, dir := range []string{
		"guard", "policy", "breaker", "bulkhead", "limiter", "budget", "throttle", "chaos", "hedge",
		"ratelimit", "slog", "otel", "prometheus", "httpretry", "httpshed", "pushback", "hop", "grpc",
		"redisguard", "sqlretry", "pgretry", "mysqlretry", "natsretry", "amqpretry", "herd", "cmd/herd", "bench",
	} {
		if !strings.Contains(readme, "]("+dir+"/)") {
			t.Errorf("README.md has no link to %s/ in its table of packages", dir)
		}
	}
}

var (
	readmeLink   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	readmeInline = regexp.MustCompile("`[^`]*`")
)

// readmeSlug is the anchor GitHub gives a heading.
func readmeSlug(heading string) string {
	var s strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			s.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			s.WriteRune(r)
		}
	}
	return s.String()
}

// Every relative link of the README and of the guides leads to a file or
// directory of the repository, and its anchor, if any, to a heading of
// that file.
func TestReadmeLinksResolve(t *testing.T) {
	guides, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, g := range guides {
		files = append(files, filepath.ToSlash(g))
	}
	checked := 0
	for _, name := range files {
		b, err := os.ReadFile(filepath.FromSlash(name))
		if err != nil {
			t.Fatal(err)
		}
		fenced := false
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "```") {
				fenced = !fenced
			}
			if fenced {
				continue
			}
			for _, m := range readmeLink.FindAllStringSubmatch(readmeInline.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				file, anchor, _ := strings.Cut(target, "#")
				dest := name
				if file != "" {
					dest = path.Join(path.Dir(name), file)
					if _, err := os.Stat(filepath.FromSlash(dest)); err != nil {
						t.Errorf("%s:%d: the link %s leads nowhere (%s)", name, i+1, target, dest)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				found := false
				for _, h := range readmeHeadings(t, dest) {
					if readmeSlug(h) == anchor {
						found = true
						break
					}
				}
				if !found {
					t.Errorf("%s:%d: the link %s: %s has no heading #%s", name, i+1, target, dest, anchor)
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked %d relative links; the extraction is broken", checked)
	}
}
