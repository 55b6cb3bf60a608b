package grpcbackoff_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/herdsafe/backoff"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
	"github.com/herdsafe/backoff/guard"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

var guardCall = guard.Call{Attempt: 1}

func TestCodes(t *testing.T) {
	is := grpcbackoff.Codes(codes.Unavailable, codes.Code(42))
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"listed", status.Error(codes.Unavailable, "x"), true},
		{"not_listed", status.Error(codes.InvalidArgument, "x"), false},
		{"wrapped", fmt.Errorf("call: %w", status.Error(codes.Unavailable, "x")), true},
		{"permanent", backoff.Permanent(status.Error(codes.Unavailable, "x")), true},
		{"retry_after", backoff.RetryAfter(1, status.Error(codes.Unavailable, "x")), true},
		{"beyond_the_defined_codes", status.Error(codes.Code(42), "x"), true},
		{"pushback_stop", fmt.Errorf("%w: %w", backoff.ErrRetriesCanceled, status.Error(codes.ResourceExhausted, "x")), true},
		{"plain", errors.New("x"), false},
	} {
		if got := is(tc.err); got != tc.want {
			t.Errorf("%s: Codes(...)(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
	if grpcbackoff.Codes()(status.Error(codes.Unavailable, "x")) {
		t.Error("Codes() accepts a code it was not given")
	}
}

// Codes allocates nothing for a status error itself, the error a guard sees
// on most calls.
func TestCodesAllocatesNothing(t *testing.T) {
	is := grpcbackoff.Codes(codes.Unavailable)
	err := status.Error(codes.NotFound, "x")
	if n := testing.AllocsPerRun(100, func() { _ = is(err) }); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}
