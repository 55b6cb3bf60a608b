package grpcbackoff_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: a
// server's, a connection's, or a stream's.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
