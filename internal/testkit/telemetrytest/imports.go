package telemetrytest

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// GuardPackages are the packages of the repository's guards, which the
// telemetry modules must not name: they read a guard through its own
// Description (guard.Describer), so that a guard added later is observed
// with no change to them.
var GuardPackages = []string{"breaker", "bulkhead", "budget", "throttle", "limiter", "chaos", "ratelimit", "redisguard", "hedge"}

// NamesNoGuard fails t if a non-test Go file of the current directory
// (the package under test) imports one of GuardPackages.
func NamesNoGuard(t *testing.T) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		read++
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, g := range GuardPackages {
				if path == "github.com/herdsafe/backoff/"+g {
					t.Errorf("%s imports %s: read the guard through guard.Describer, and name its errors by their ErrorType and RetryCause methods, instead", f, path)
				}
			}
		}
	}
	if read == 0 {
		t.Fatal("no Go file of the package found in the current directory")
	}
}
