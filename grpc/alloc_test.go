package grpcbackoff_test

import (
	"context"
	"testing"

	"github.com/herdsafe/backoff"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
	"github.com/herdsafe/backoff/policy"
	"google.golang.org/grpc"
)

// The success path is the hot path: a call whose first attempt succeeds
// allocates nothing in the interceptor, whatever call options it carries.
// (gRPC's copy of the trailer the interceptor asks for is gRPC's, on a real
// call: bench's GRPCUnary counts it.)
func TestUnarySuccessAllocatesNothing(t *testing.T) {
	icpt := grpcbackoff.UnaryClientInterceptor(grpcbackoff.WithRetry(backoff.WithMaxTries(3)))
	invoker := func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error { return nil }
	ctx := context.Background()
	opts := []grpc.CallOption{grpc.WaitForReady(true), grpc.CallContentSubtype("proto")}
	if n := testing.AllocsPerRun(1000, func() {
		if err := icpt(ctx, callMethod, nil, nil, nil, invoker, opts...); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations per successful call, want 0", n)
	}
}

// BenchmarkUnarySuccess is the interceptor's own cost on a call that
// succeeds at once.
func BenchmarkUnarySuccess(b *testing.B) {
	icpt := grpcbackoff.UnaryClientInterceptor(grpcbackoff.WithRetry(backoff.WithMaxTries(3)))
	invoker := func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error { return nil }
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_ = icpt(ctx, callMethod, nil, nil, nil, invoker)
	}
}

// BenchmarkUnaryPolicyFloor is what BenchmarkUnarySuccess builds on: a
// Policy of the same retry stage, alone, running a function that returns
// at once. The difference between the two is the interceptor's own cost.
func BenchmarkUnaryPolicyFloor(b *testing.B) {
	p := policy.New(policy.Retry(backoff.WithMaxTries(3)))
	fn := func(context.Context, backoff.Attempt) error { return nil }
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_ = p.Attempts(ctx, fn)
	}
}
