package backoff_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/herdsafe/backoff"

// The layers of the core module, bottom up, below the transports and the
// Instrumenters.
var (
	// guards are the guards of the core module.
	guards = []string{"breaker", "bulkhead", "budget", "throttle", "chaos", "limiter", "hedge"}

	// The floors of internal/ (internal/README.md). The leaves import
	// nothing of the module but other leaves, and any package may import
	// them. The production internals read the layers below them (the core,
	// the guard contract, the composition, pushback and hop) and are read
	// by those above (the Instrumenters); they import no guard (they read
	// a guard through the guard contract, and its errors by the names they
	// give themselves), no transport, no Instrumenter, nothing of another
	// module. The test kits
	// live under internal/testkit/, and only _test.go files import them,
	// so that no build of the library holds one. A new package of
	// internal/ must take its floor here.
	internalLeaves     = []string{"internal/fleet", "internal/queue", "internal/sentinel", "internal/setting", "internal/typednil", "internal/window"}
	internalProduction = []string{"internal/telemetry"}
	// belowProduction is what a production internal may import besides
	// the leaves and the other production internals.
	belowProduction = []string{"", "guard", "policy", "pushback", "hop"}
)

const testKits = "internal/testkit"

func isInternalLeaf(pkg string) bool { return slices.Contains(internalLeaves, pkg) }

func isTestKit(pkg string) bool { return pkg == testKits || strings.HasPrefix(pkg, testKits+"/") }

// layerAllows reports whether the package in dir, the core ("") or a layer
// just above it (guard, policy, a guard), may import pkg. The layers
// import downwards only: the core (the driver and its BackOffs) imports
// none of the module's packages but the leaves of internal/; the guard
// contract only the core; the composition (policy) only the core and the
// contract, never a guard; a guard only the core, the contract and
// another guard it builds on (the limiter's queue is the bulkhead's),
// never the composition or the transports, except hedge, whose attempts
// each run an inner Policy. None of them imports a package of internal/
// but its leaves.
func layerAllows(dir, pkg string) bool {
	if strings.HasPrefix(pkg, "internal/") {
		return isInternalLeaf(pkg) // the floor below them all
	}
	switch dir {
	case "":
		return false
	case "guard":
		return pkg == ""
	case "policy":
		return pkg == "" || pkg == "guard"
	case "hedge":
		return pkg == "" || pkg == "guard" || pkg == "policy"
	}
	// a guard: the core, the contract, and another guard it builds on
	return pkg == "" || pkg == "guard" || pkg != "hedge" && slices.Contains(guards, pkg)
}

// facts is what the non-test files of a package say of its dependencies.
type facts struct {
	imports []string // the module's packages imported, as paths inside the module ("" for the core)
	testing bool     // package testing imported
	init    bool     // a func init declared (looked for in the layers and internal/ only)
}

// layered reports whether the package in dir is one of the core's layers
// or of internal/, whose dependencies are all in their imports: none of
// them has an init function, which would make a dependency at load time
// that no import shows.
func layered(dir string) bool {
	return dir == "" || dir == "guard" || dir == "policy" || slices.Contains(guards, dir) || strings.HasPrefix(dir, "internal/")
}

// violations returns what is wrong with the dependencies of the package
// in dir (a slash-separated path from the repository's root, "" for the
// root), as its non-test files state them.
func violations(dir string, f facts) []string {
	imports := f.imports
	var out []string
	bad := func(pkg, why string) {
		out = append(out, "package "+path.Join(module, dir)+" imports "+path.Join(module, pkg)+": "+why)
	}
	switch {
	case dir == "" || dir == "guard" || dir == "policy" || slices.Contains(guards, dir):
		for _, pkg := range imports {
			if !layerAllows(dir, pkg) {
				bad(pkg, "a layer above it, beside the composition, or a package of internal/ above the leaves")
			}
		}
	case isTestKit(dir):
		return nil // a test kit may import whatever the tests that use it do
	case isInternalLeaf(dir):
		for _, pkg := range imports {
			if !isInternalLeaf(pkg) {
				bad(pkg, "a leaf of internal/ imports only other leaves")
			}
		}
	case slices.Contains(internalProduction, dir):
		for _, pkg := range imports {
			if !isInternalLeaf(pkg) && !slices.Contains(internalProduction, pkg) && !slices.Contains(belowProduction, pkg) {
				bad(pkg, "a production package of internal/ imports only the leaves, the other production internals and the layers below it (belowProduction)")
			}
		}
	case strings.HasPrefix(dir, "internal/"):
		out = append(out, "package "+path.Join(module, dir)+" has no floor: list it in internalLeaves or internalProduction, or move a test kit under "+testKits)
	}
	if f.init && layered(dir) {
		out = append(out, "package "+path.Join(module, dir)+" has an init function: a dependency made at load time, which no import shows; export what the other package calls instead")
	}
	if f.testing && strings.HasPrefix(dir, "internal/") {
		out = append(out, "package "+path.Join(module, dir)+" imports testing in a non-test file: it is a test kit, and belongs under "+testKits)
	}
	for _, pkg := range imports {
		if isTestKit(pkg) {
			bad(pkg, "a test kit, for _test.go files only")
		}
	}
	return out
}

// treeViolations walks the repository at root, every module of it (but
// testdata and hidden directories), and returns the violations of each
// package's non-test files, sorted.
func treeViolations(t *testing.T, root string) []string {
	t.Helper()
	type pkgImports struct {
		mod           map[string]bool
		testing, init bool
	}
	pkgs := map[string]*pkgImports{}
	err := filepath.WalkDir(root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		base := d.Name()
		if d.IsDir() {
			if name != root && (base == "testdata" || base == "vendor" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(base, ".go") || strings.HasSuffix(base, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(name))
		if err != nil {
			return err
		}
		dir := strings.TrimPrefix(filepath.ToSlash(rel), ".")
		mode := parser.ImportsOnly
		if layered(dir) {
			mode = parser.SkipObjectResolution // the declarations too, for an init function
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, mode)
		if err != nil {
			return err
		}
		p := pkgs[dir]
		if p == nil {
			p = &pkgImports{mod: map[string]bool{}}
			pkgs[dir] = p
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				p.init = true
			}
		}
		for _, spec := range f.Imports {
			ip, _ := strconv.Unquote(spec.Path.Value)
			switch {
			case ip == "testing":
				p.testing = true
			case ip == module || strings.HasPrefix(ip, module+"/"):
				p.mod[strings.TrimPrefix(strings.TrimPrefix(ip, module), "/")] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for dir, p := range pkgs {
		imports := make([]string, 0, len(p.mod))
		for pkg := range p.mod {
			imports = append(imports, pkg)
		}
		slices.Sort(imports)
		out = append(out, violations(dir, facts{imports: imports, testing: p.testing, init: p.init})...)
	}
	slices.Sort(out)
	return out
}

// The layers import downwards only (layerAllows); internal/ has floors,
// leaves, production internals and test kits; none of them has an init
// function that wires one package into another; and no package of the
// repository, in any of its modules, builds a test kit into its non-test
// code.
func TestLayersImportDownwards(t *testing.T) {
	for _, dir := range slices.Concat([]string{".", "guard", "policy", testKits}, guards, internalLeaves, internalProduction) {
		if _, err := os.Stat(dir); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range treeViolations(t, ".") {
		t.Error(v)
	}
}

// The check finds each kind of wrong import, and none of the right ones
// beside them, in a repository made up for it.
func TestLayersCatchWrongImports(t *testing.T) {
	root := t.TempDir()
	imp := func(pkgs ...string) string {
		var b strings.Builder
		for _, p := range pkgs {
			b.WriteString("import _ " + strconv.Quote(p) + "\n")
		}
		return b.String()
	}
	files := map[string]string{
		// right
		"a.go":                      imp(module + "/internal/setting"),
		"guard/a.go":                imp(module),
		"breaker/a.go":              imp(module+"/guard", module+"/internal/window", module+"/internal/fleet"),
		"breaker/a_test.go":         imp(module+"/policy", module+"/internal/testkit/kit") + "func init() {}\n",
		"breaker/b.go":              "func (b) init() {}\n",
		"httpretry/b.go":            "func init() {}\n",
		"internal/setting/a.go":     imp(module + "/internal/typednil"),
		"internal/typednil/a.go":    "",
		"internal/telemetry/a.go":   imp(module, module+"/policy", module+"/breaker", module+"/internal/setting"),
		"internal/testkit/kit/a.go": imp("testing", module+"/httpretry", module+"/internal/testkit/other"),
		"httpretry/a.go":            imp(module+"/policy", module+"/internal/setting"),
		"othermod/a_test.go":        imp(module + "/internal/testkit/kit"),
		"testdata/x/a.go":           imp(module + "/internal/testkit/kit"),
		// wrong
		"b.go":                    imp(module + "/guard"),
		"policy/a.go":             imp(module + "/breaker"),
		"bulkhead/a.go":           imp(module + "/internal/telemetry"),
		"internal/window/a.go":    imp(module + "/guard"),
		"internal/queue/a.go":     imp(module + "/internal/telemetry"),
		"internal/telemetry/b.go": imp(module + "/httpretry"),
		"internal/telemetry/c.go": imp(module + "/breaker"),
		"internal/helper/a.go":    "",
		"internal/fleet/a.go":     imp("testing"),
		"budget/a.go":             imp(module+"/internal/fleet") + "func init() {}\n",
		"otel/a.go":               imp(module + "/internal/testkit/kit"),
	}
	for name, src := range files {
		full := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("package p\n"+src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := module + "/"
	want := []string{
		"package " + m + "budget has an init function: a dependency made at load time, which no import shows; export what the other package calls instead",
		"package " + m + "bulkhead imports " + m + "internal/telemetry: a layer above it, beside the composition, or a package of internal/ above the leaves",
		"package " + m + "internal/fleet imports testing in a non-test file: it is a test kit, and belongs under internal/testkit",
		"package " + m + "internal/helper has no floor: list it in internalLeaves or internalProduction, or move a test kit under internal/testkit",
		"package " + m + "internal/queue imports " + m + "internal/telemetry: a leaf of internal/ imports only other leaves",
		"package " + m + "internal/telemetry imports " + m + "breaker: a production package of internal/ imports only the leaves, the other production internals and the layers below it (belowProduction)",
		"package " + m + "internal/telemetry imports " + m + "httpretry: a production package of internal/ imports only the leaves, the other production internals and the layers below it (belowProduction)",
		"package " + m + "internal/window imports " + m + "guard: a leaf of internal/ imports only other leaves",
		"package " + m + "otel imports " + m + "internal/testkit/kit: a test kit, for _test.go files only",
		"package " + m + "policy imports " + m + "breaker: a layer above it, beside the composition, or a package of internal/ above the leaves",
		"package " + module + " imports " + m + "guard: a layer above it, beside the composition, or a package of internal/ above the leaves",
	}
	slices.Sort(want)
	if got := treeViolations(t, root); !slices.Equal(got, want) {
		t.Errorf("violations found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
