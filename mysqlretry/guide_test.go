package mysqlretry_test

import (
	"path/filepath"
	"testing"

	"github.com/herdsafe/backoff/internal/testkit/guidetest"
)

// Every Go block of docs/databases.md that imports this package is a whole
// program, and builds.
func TestGuideBlocksBuild(t *testing.T) {
	guidetest.BuildBlocks(t, filepath.Join("..", "docs", "databases.md"), "/mysqlretry\"")
}
