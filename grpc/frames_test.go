package grpcbackoff_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/herdsafe/backoff"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
	"github.com/herdsafe/backoff/policy"
	"google.golang.org/grpc"
)

// frameTarget is the most frames a unary call may pass through between
// the interceptor's caller and the invoker, the rest of the chain: the
// interceptor's and those of its policy's retry stage.
const frameTarget = 8

// framesUpTo returns the frames between the function that calls it and the
// test function named test (both left out), innermost first; inlined calls
// count, as runtime.CallersFrames expands them.
func framesUpTo(test string) []runtime.Frame {
	var frames []runtime.Frame
	pcs := make([]uintptr, 64)
	it := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)]) // the caller of framesUpTo's caller first
	for {
		f, more := it.Next()
		if strings.HasSuffix(f.Function, "."+test) {
			break
		}
		frames = append(frames, f)
		if !more {
			break
		}
	}
	return frames
}

// A unary call reaches the invoker through the interceptor and the retry
// stage of its policy, and nothing else: the interceptor adds two frames,
// itself and the attempt, to the frames its policy's Attempts takes to
// reach a function, whatever that is, and together they stay within
// frameTarget once that policy's path is within frameTarget less two.
func TestFramesToTheInvoker(t *testing.T) {
	icpt := grpcbackoff.UnaryClientInterceptor(grpcbackoff.WithRetry(backoff.WithMaxTries(3)))
	var frames []runtime.Frame
	invoker := func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error {
		frames = framesUpTo("TestFramesToTheInvoker")
		return nil
	}
	if err := icpt(context.Background(), callMethod, nil, nil, nil, invoker); err != nil {
		t.Fatal(err)
	}

	// The path of a Policy of the same one retry stage, on its own.
	var policyFrames []runtime.Frame
	p := policy.New(policy.Retry(backoff.WithMaxTries(3)))
	if err := p.Attempts(context.Background(), func(context.Context, backoff.Attempt) error {
		policyFrames = framesUpTo("TestFramesToTheInvoker")
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	own := 0
	for _, f := range frames {
		if strings.HasPrefix(f.Function, "github.com/herdsafe/backoff/grpc.") {
			own++
		}
	}
	if own > 2 {
		t.Errorf("%d frames of the interceptor between its caller and the invoker, want 2 at most", own)
	}
	if len(frames) > len(policyFrames)+2 {
		t.Errorf("%d frames between the interceptor's caller and the invoker, want its policy's %d and 2 at most", len(frames), len(policyFrames))
	}
	if len(frames) > frameTarget {
		t.Errorf("%d frames between the interceptor's caller and the invoker, want %d at most", len(frames), frameTarget)
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("%d frames (target %d; Policy.Attempts alone: %d):", len(frames), frameTarget, len(policyFrames))
		for _, f := range frames {
			t.Logf("  %s %s:%d", f.Function, filepath.Base(f.File), f.Line)
		}
	}
}
