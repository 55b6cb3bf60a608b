// Package guidetest builds the Go blocks of a guide under docs/ for the
// tests of the module the guide documents.
package guidetest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goBlock matches a fenced Go block of a Markdown file.
var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// BuildBlocks builds, in the module of the test's working directory, each
// Go block of the guide (a path from there, such as
// "../docs/databases.md") that contains marker: each must be a whole
// program. It fails t if one does not build or none contains marker.
func BuildBlocks(t *testing.T, guide, marker string) {
	if testing.Short() {
		t.Skip("builds the guide's Go blocks with the go command")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	text, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	dir, root := t.TempDir(), must(os.Getwd())
	overlay := map[string]string{}
	var pkgs []string
	for i, m := range goBlock.FindAllStringSubmatch(string(text), -1) {
		if !strings.Contains(m[1], marker) {
			continue
		}
		real := filepath.Join(dir, fmt.Sprintf("block%d.go", i))
		if err := os.WriteFile(real, []byte(m[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		pkg := filepath.Join("internal", "guidecheck", fmt.Sprintf("block%d", i))
		overlay[filepath.Join(root, pkg, "main.go")] = real
		pkgs = append(pkgs, "./"+filepath.ToSlash(pkg))
	}
	if len(pkgs) == 0 {
		t.Fatalf("no Go block of %s contains %q", guide, marker)
	}
	ov, _ := json.Marshal(map[string]any{"Replace": overlay})
	ovPath := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goCmd, append([]string{"build", "-o", filepath.Join(dir, "bin") + string(filepath.Separator), "-overlay", ovPath}, pkgs...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the guide's Go blocks do not build: %v\n%s", err, out)
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}
