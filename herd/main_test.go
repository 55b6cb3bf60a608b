package herd_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: a
// simulation's retry loops run as coroutines, each on a goroutine, which
// must all end with the simulation, whichever way it ends.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
