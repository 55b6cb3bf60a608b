package backoff_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/herdsafe/backoff"

// imports returns the module's packages that the non-test files of dir
// import, as paths inside the module ("" for the root package).
func imports(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range f.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			if path == module || strings.HasPrefix(path, module+"/") {
				out[strings.TrimPrefix(strings.TrimPrefix(path, module), "/")] = true
			}
		}
	}
	return out
}

// The layers import downwards only: the core (the driver and its
// BackOffs) imports none of the module's packages but its internal ones;
// the guard contract only the core; the composition (policy) only the
// core and the contract, never a guard; a guard only the core, the
// contract and another guard it builds on (the limiter's queue is the
// bulkhead's), never the composition or the transports, except hedge,
// whose attempts each run an inner Policy.
func TestLayersImportDownwards(t *testing.T) {
	guards := []string{"breaker", "bulkhead", "budget", "throttle", "chaos", "limiter", "hedge"}
	isGuard := func(pkg string) bool {
		for _, g := range guards {
			if pkg == g {
				return true
			}
		}
		return false
	}
	allowed := func(dir, pkg string) bool {
		if strings.HasPrefix(pkg, "internal/") {
			return true
		}
		switch dir {
		case ".":
			return false
		case "guard":
			return pkg == ""
		case "policy":
			return pkg == "" || pkg == "guard"
		case "hedge":
			return pkg == "" || pkg == "guard" || pkg == "policy"
		}
		// a guard: the core, the contract, and another guard it builds on
		return pkg == "" || pkg == "guard" || pkg != "hedge" && isGuard(pkg)
	}
	for _, dir := range append([]string{".", "guard", "policy"}, guards...) {
		if _, err := os.Stat(dir); err != nil {
			t.Fatal(err)
		}
		for pkg := range imports(t, dir) {
			if !allowed(dir, pkg) {
				t.Errorf("package %s imports %s/%s, a layer above it or beside the composition", dir, module, pkg)
			}
		}
	}
}
