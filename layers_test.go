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
// core and the contract, never a guard; and no guard imports the
// composition, except hedge, whose attempts each run an inner Policy.
func TestLayersImportDownwards(t *testing.T) {
	guards := []string{"breaker", "bulkhead", "budget", "throttle", "chaos", "limiter", "hedge"}
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
		return pkg != "policy" // a guard
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
