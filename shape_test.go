package backoff_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/herdsafe/backoff"
)

// The package stays small to read: its go doc -short listing is 48 lines
// at most.
func TestGoDocIsShort(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(gobin, "doc", "-short", ".").Output()
	if err != nil {
		t.Fatalf("go doc -short: %v", err)
	}
	if n := strings.Count(string(out), "\n"); n > 48 {
		t.Errorf("go doc -short lists %d lines, want 48 at most:\n%s", n, out)
	}
}

// Between a RetryCtx call and its operation stand at most four frames, all
// of them in retry.go: the driver can be read, and copied, from that file.
// (The entry point, the loop, which is every entry point's one setup too,
// the attempt, and the closure that keeps the result.)
func TestFramesToTheOperation(t *testing.T) {
	var frames []runtime.Frame
	_, err := backoff.RetryCtx(context.Background(), func() (int, error) {
		pcs := make([]uintptr, 16)
		it := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)]) // the operation's caller first
		for {
			f, more := it.Next()
			if strings.HasSuffix(f.Function, "TestFramesToTheOperation") {
				break
			}
			frames = append(frames, f)
			if !more {
				break
			}
		}
		return 1, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) > 4 {
		t.Errorf("%d frames between RetryCtx's caller and the operation, want 4 at most", len(frames))
	}
	for _, f := range frames {
		if filepath.Base(f.File) != "retry.go" {
			t.Errorf("frame %s is in %s, not retry.go", f.Function, f.File)
		}
	}
	if t.Failed() {
		for _, f := range frames {
			t.Logf("%s %s:%d", f.Function, filepath.Base(f.File), f.Line)
		}
	}
}
