package grpcbackoff_test

import (
	"os"
	"strings"
	"testing"
)

// The core's users must never download gRPC: the core's go.mod requires
// neither gRPC nor this module.
func TestTheCoreRequiresNoGRPC(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"google.golang.org/grpc", "google.golang.org/protobuf", "github.com/herdsafe/backoff/grpc"} {
		if strings.Contains(string(mod), banned) {
			t.Errorf("the core's go.mod names %s", banned)
		}
	}
}
