package queue_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: a
// Queue starts none, and a caller that gave up must not be left blocked.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
