package pushback_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The guards' packages, which pushback must not name: it reads a guard's
// load through guard.Loader, so that a guard added later is read with no
// change here.
var guardPackages = []string{"breaker", "bulkhead", "budget", "throttle", "limiter", "chaos", "ratelimit", "redisguard", "hedge"}

func TestNamesNoGuard(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, g := range guardPackages {
				if path == "github.com/herdsafe/backoff/"+g {
					t.Errorf("%s imports %s: read the guard through guard.Loader instead", f, path)
				}
			}
		}
	}
}
