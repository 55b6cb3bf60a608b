package backoff

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every Go block of README.md and of the guides in docs/ compiles: each is
// built as a package of its own, with the declarations of readmePrelude and
// the imports it names. A block of declarations (it starts with func, type,
// var or const) stands at the top level; any other block is the body of a
// function. The compiler reports errors at their lines in the file that
// holds the block.
//
// The guides of the database and broker modules (docs/databases.md,
// docs/brokers.md) are left to those modules' own tests, which build their
// blocks against the drivers this module does not depend on.
//
// A block that needs a module of the workspace other than this one (the
// telemetry modules, redisguard, ratelimit) is built only when the go command works
// in the workspace, as `go test work` does; a contributor who runs this
// module's tests alone (GOWORK=off) builds the others.
func TestReadmeGoBlocksCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the README's Go blocks with the go command")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	files := readmeDocFiles(t, root)
	var blocks []readmeBlock
	for _, name := range files {
		md, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		found := readmeGoBlocks(string(md))
		for i := range found {
			found[i].file = name
		}
		if min := readmeMinBlocks[name]; len(found) < min {
			t.Fatalf("found %d Go blocks in %s; want at least %d: the extraction is broken, or blocks were lost", len(found), name, min)
		}
		blocks = append(blocks, found...)
	}
	if len(blocks) < 38 {
		t.Fatalf("found %d Go blocks in %s; the extraction is broken", len(blocks), strings.Join(files, ", "))
	}
	workspace := readmeWorkspace(t, goCmd, root)
	dir := t.TempDir()
	overlay := map[string]string{}
	var pkgs []string
	skipped := 0
	for i, b := range blocks {
		pkg := fmt.Sprintf("readme%03d", i+1)
		snippet, others := readmeSnippet(pkg, b)
		if others && !workspace {
			skipped++
			continue
		}
		files := map[string]string{"snippet.go": snippet, "prelude.go": readmePrelude(pkg)}
		if readmeOtel.MatchString(b.text) {
			files["prelude_otel.go"] = readmeOtelPrelude(pkg)
		}
		// The packages exist only in the overlay, inside the module, so
		// that they build against the repository as it is.
		virtual := filepath.Join(root, "internal", "readmecheck", pkg)
		for name, src := range files {
			real := filepath.Join(dir, pkg+"_"+name)
			if err := os.WriteFile(real, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			overlay[filepath.Join(virtual, name)] = real
		}
		pkgs = append(pkgs, "./"+filepath.ToSlash(filepath.Join("internal", "readmecheck", pkg)))
	}
	if skipped > 0 {
		t.Logf("%d of %d blocks need another module of the workspace, which GOWORK=off leaves out: not built", skipped, len(blocks))
	}
	ov, _ := json.Marshal(map[string]any{"Replace": overlay})
	ovPath := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
		t.Fatal(err)
	}
	// One build of every block, with the flags this test was built with:
	// the packages the blocks import (gRPC, OpenTelemetry, Prometheus,
	// Redis's client...) are then the ones the other tests of the
	// workspace compile anyway, found in the build cache, and the blocks
	// cost only their own compilation. Built without -race under a
	// -race run, they would all be compiled a second time.
	args := []string{"build", "-overlay", ovPath}
	if readmeRace {
		args = append(args, "-race")
	}
	cmd := exec.Command(goCmd, append(args, pkgs...)...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the Go blocks of the README and the guides do not compile:\n%s", out)
	}
}

// readmeOwnGuides are the guides in docs/ whose Go blocks the modules they
// document build (they import drivers this module does not depend on).
var readmeOwnGuides = map[string]bool{
	"docs/databases.md": true, // pgretry's and mysqlretry's TestGuideBlocksBuild
	"docs/brokers.md":   true, // natsretry's and amqpretry's TestGuideGoBlocksAreExamples
}

// readmeMinBlocks is the fewest Go blocks each file is known to hold, so
// that a broken extraction, or blocks lost in a move, fail the test.
var readmeMinBlocks = map[string]int{
	"README.md":         3,
	"docs/retrying.md":  8,
	"docs/policies.md":  12,
	"docs/telemetry.md": 4,
	"docs/http.md":      2,
	"docs/grpc.md":      2,
	"docs/shedding.md":  3,
	"docs/fleet.md":     2,
	"docs/simulator.md": 3,
}

// readmeDocFiles is README.md and every guide of docs/ but those of
// readmeOwnGuides, as slash-separated paths from the repository's root.
func readmeDocFiles(t *testing.T, root string) []string {
	guides, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, g := range guides {
		name := "docs/" + filepath.Base(g)
		if !readmeOwnGuides[name] {
			files = append(files, name)
		}
	}
	for name := range readmeMinBlocks {
		if !slices.Contains(files, name) {
			t.Errorf("%s is gone", name)
		}
	}
	return files
}

// readmeWorkspace reports whether the go command builds in the workspace
// of go.work.
func readmeWorkspace(t *testing.T, goCmd, root string) bool {
	cmd := exec.Command(goCmd, "env", "GOWORK")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go env GOWORK: %v", err)
	}
	w := strings.TrimSpace(string(out))
	return w != "" && w != "off"
}

// readmeBlock is a Go block of the README or a guide: its text, the file
// that holds it, and the line of that file its first line is on.
type readmeBlock struct {
	text string
	file string
	line int
}

func readmeGoBlocks(md string) []readmeBlock {
	var blocks []readmeBlock
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```go" {
			continue
		}
		start := i + 1
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
		}
		blocks = append(blocks, readmeBlock{text: strings.Join(lines[start:i], "\n"), line: start + 1})
	}
	return blocks
}

// readmeImports are the packages a README block may name, by the name it
// uses them under.
var readmeImports = map[string]string{
	"backoff":     "github.com/herdsafe/backoff",
	"policy":      "github.com/herdsafe/backoff/policy",
	"guard":       "github.com/herdsafe/backoff/guard",
	"slogbackoff": "github.com/herdsafe/backoff/slog",
	"breaker":     "github.com/herdsafe/backoff/breaker",
	"bulkhead":    "github.com/herdsafe/backoff/bulkhead",
	"budget":      "github.com/herdsafe/backoff/budget",
	"throttle":    "github.com/herdsafe/backoff/throttle",
	"limiter":     "github.com/herdsafe/backoff/limiter",
	"chaos":       "github.com/herdsafe/backoff/chaos",
	"hedge":       "github.com/herdsafe/backoff/hedge",
	"herd":        "github.com/herdsafe/backoff/herd",
	"httpretry":   "github.com/herdsafe/backoff/httpretry",
	"httpshed":    "github.com/herdsafe/backoff/httpshed",
	"pushback":    "github.com/herdsafe/backoff/pushback",
	"otelbackoff": "github.com/herdsafe/backoff/otel",
	"prombackoff": "github.com/herdsafe/backoff/prometheus",
	"redisguard":  "github.com/herdsafe/backoff/redisguard",
	"ratelimit":   "github.com/herdsafe/backoff/ratelimit",
	"grpcbackoff": "github.com/herdsafe/backoff/grpc",
	"grpc":        "google.golang.org/grpc",
	"codes":       "google.golang.org/grpc/codes",
	"status":      "google.golang.org/grpc/status",
	"insecure":    "google.golang.org/grpc/credentials/insecure",
	"redis":       "github.com/redis/go-redis/v9",
	"prometheus":  "github.com/prometheus/client_golang/prometheus",
	"promhttp":    "github.com/prometheus/client_golang/prometheus/promhttp",
	"clock":       "github.com/benbjohnson/clock",
	"context":     "context",
	"errors":      "errors",
	"fmt":         "fmt",
	"http":        "net/http",
	"io":          "io",
	"log":         "log",
	"slog":        "log/slog",
	"net":         "net",
	"os":          "os",
	"strings":     "strings",
	"syscall":     "syscall",
	"time":        "time",
}

var (
	readmeDecl    = regexp.MustCompile(`^(func|type|var|const) `)
	readmeComment = regexp.MustCompile(`//.*`)
	readmeOtel    = regexp.MustCompile(`\b(tracerProvider|meterProvider)\b`)
)

// readmeOwnModule reports whether the package at path builds in this
// module alone: the standard library, this module's packages, and its one
// dependency. (gRPC is a dependency of the grpc module, not of this one.)
func readmeOwnModule(path string) bool {
	for _, other := range []string{"/otel", "/prometheus", "/redisguard", "/ratelimit", "/grpc"} {
		if strings.HasPrefix(path, "github.com/herdsafe/backoff"+other) {
			return false
		}
	}
	return !strings.Contains(path, ".") || strings.HasPrefix(path, "github.com/herdsafe/backoff") || path == "github.com/benbjohnson/clock"
}

// readmeSnippet is the source of the package of block b, and whether it
// needs a module other than this one.
func readmeSnippet(pkg string, b readmeBlock) (string, bool) {
	var imports []string
	code := readmeComment.ReplaceAllString(b.text, "")
	others := readmeOtel.MatchString(code)
	for name, path := range readmeImports {
		if regexp.MustCompile(`\b` + name + `\.`).MatchString(code) {
			imports = append(imports, fmt.Sprintf("%q", path))
			others = others || !readmeOwnModule(path)
		}
	}
	var s strings.Builder
	fmt.Fprintf(&s, "package %s\n\nimport (\n\t%s\n)\n\n", pkg, strings.Join(imports, "\n\t"))
	first := strings.TrimSpace(b.text)
	for strings.HasPrefix(first, "//") {
		_, first, _ = strings.Cut(first, "\n")
		first = strings.TrimSpace(first)
	}
	if readmeDecl.MatchString(first) {
		fmt.Fprintf(&s, "//line %s:%d\n%s\n", b.file, b.line, b.text)
		return s.String(), others
	}
	fmt.Fprintf(&s, "func snippet() error {\n//line %s:%d\n%s\n\treturn nil\n}\n", b.file, b.line, b.text)
	return s.String(), others
}

// readmePrelude declares what the README's blocks use and do not define:
// the caller's context, an operation, a client.
func readmePrelude(pkg string) string {
	return "package " + pkg + `

import (
	"context"
	"net/http"
)

var (
	ctx         = context.Background()
	operation   func() (string, error)
	fetch       func(context.Context) (string, error)
	isTransient func(error) bool
	client      *http.Client
	conn        interface {
		runOnce(context.Context) (connected bool, err error)
	}
)

type User struct{ Name string }

var api interface {
	GetUser(ctx context.Context, id string) (User, error)
}
`
}

// readmeOtelPrelude declares the OpenTelemetry providers a block uses.
func readmeOtelPrelude(pkg string) string {
	return "package " + pkg + `

import (
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

var (
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
)
`
}
