package grpcbackoff_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/bulkhead"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/hedge"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
)

// A client interceptor given something it cannot use fails every call
// with INTERNAL and an error matching backoff.ErrInvalidConfiguration that
// names the setting, before anything is sent: never a panic, never a
// silent default.
func TestClientBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []grpcbackoff.Option
		want string
	}{
		{"nil_option", []grpcbackoff.Option{grpcbackoff.WithRetry(), nil}, "nil Option (option 2)"},
		{"nil_retry_option", []grpcbackoff.Option{grpcbackoff.WithRetry(backoff.WithMaxTries(3), nil)}, "WithRetry was given a nil backoff.RetryOption (option 2)"},
		{"invalid_retry_option", []grpcbackoff.Option{grpcbackoff.WithRetry(backoff.WithMaxElapsedTime(-time.Second))}, "WithRetry: "},
		{"nil_call_guard", []grpcbackoff.Option{grpcbackoff.WithCallGuards(bulkhead.New(1), nil)}, "WithCallGuards was given a nil guard.Guard (guard 2)"},
		{"typed_nil_call_guard", []grpcbackoff.Option{grpcbackoff.WithCallGuards((*bulkhead.Bulkhead)(nil))}, "WithCallGuards was given a nil guard.Guard (guard 1)"},
		{"invalid_call_guard", []grpcbackoff.Option{grpcbackoff.WithCallGuards(bulkhead.New(0))}, "WithCallGuards: the guard *bulkhead.Bulkhead (guard 1)"},
		{"nil_attempt_guard", []grpcbackoff.Option{grpcbackoff.WithAttemptGuards(nil)}, "WithAttemptGuards was given a nil guard.Guard (guard 1)"},
		{"typed_nil_attempt_guard", []grpcbackoff.Option{grpcbackoff.WithAttemptGuards((*breaker.Breaker)(nil))}, "WithAttemptGuards was given a nil guard.Guard (guard 1)"},
		{"invalid_attempt_guard", []grpcbackoff.Option{grpcbackoff.WithAttemptGuards(bulkhead.New(-1))}, "WithAttemptGuards: the guard *bulkhead.Bulkhead (guard 1)"},
		{"negative_attempt_timeout", []grpcbackoff.Option{grpcbackoff.WithAttemptTimeout(-time.Second)}, "WithAttemptTimeout(-1s)"},
		{"unknown_code", []grpcbackoff.Option{grpcbackoff.WithRetryableCodes(codes.Code(99))}, "WithRetryableCodes(99)"},
		{"ok_code", []grpcbackoff.Option{grpcbackoff.WithRetryableCodes(codes.OK)}, "WithRetryableCodes(OK)"},
		{"cancelled_code", []grpcbackoff.Option{grpcbackoff.WithRetryableCodes(codes.Unavailable, codes.Canceled)}, "WithRetryableCodes(Canceled)"},
		{"zero_max_pushback", []grpcbackoff.Option{grpcbackoff.WithMaxPushback(0)}, "WithMaxPushback(0s)"},
		{"negative_buffer", []grpcbackoff.Option{grpcbackoff.WithMaxStreamBuffer(-1)}, "WithMaxStreamBuffer(-1)"},
		{"nil_hedger", []grpcbackoff.Option{grpcbackoff.WithHedging(nil, callMethod)}, "nil *hedge.Hedger"},
		{"invalid_hedger", []grpcbackoff.Option{grpcbackoff.WithHedging(hedge.New(), callMethod)}, "WithHedging"},
		{"no_hedged_method", []grpcbackoff.Option{grpcbackoff.WithHedging(hedge.New(hedge.WithDelay(time.Millisecond)))}, "no method"},
		{"bad_method_name", []grpcbackoff.Option{grpcbackoff.WithHedging(hedge.New(hedge.WithDelay(time.Millisecond)), "Check")}, `WithHedging("Check")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			invoked := false
			invoker := func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error {
				invoked = true
				return nil
			}
			err := grpcbackoff.UnaryClientInterceptor(tc.opts...)(context.Background(), callMethod, nil, nil, nil, invoker)
			checkInvalid(t, err, tc.want)
			if invoked {
				t.Error("the call was made")
			}

			opened := false
			streamer := func(context.Context, *grpc.StreamDesc, *grpc.ClientConn, string, ...grpc.CallOption) (grpc.ClientStream, error) {
				opened = true
				return nil, errors.New("not reached")
			}
			cs, err := grpcbackoff.StreamClientInterceptor(tc.opts...)(context.Background(), watchDesc, nil, watchMethod, streamer)
			if cs != nil {
				t.Error("a stream was returned")
			}
			checkInvalid(t, err, tc.want)
			if opened {
				t.Error("a stream was opened")
			}
		})
	}
}

func checkInvalid(t *testing.T, err error, want string) {
	t.Helper()
	wantCode(t, err, codes.Internal)
	if !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("error %v does not match ErrInvalidConfiguration", err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name %q", err, want)
	}
}

// A hedged method whose reply is not a proto.Message fails with INTERNAL,
// before any attempt.
func TestHedgingNeedsAProtoReply(t *testing.T) {
	icpt := grpcbackoff.UnaryClientInterceptor(grpcbackoff.WithHedging(hedge.New(hedge.WithDelay(time.Millisecond)), callMethod))
	invoked := false
	err := icpt(context.Background(), callMethod, nil, new(string), nil, func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error {
		invoked = true
		return nil
	})
	checkInvalid(t, err, "not a proto.Message")
	if invoked {
		t.Error("the call was made")
	}
}

// A server interceptor given something it cannot use fails every call
// with INTERNAL, naming the setting, without running the handler.
func TestServerBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    guard.Guard
		opts []grpcbackoff.ServerOption
		want string
	}{
		{"nil_guard", nil, nil, "nil guard.Guard"},
		{"typed_nil_guard", (*bulkhead.Bulkhead)(nil), nil, "nil guard.Guard"},
		{"invalid_guard", bulkhead.New(0), nil, "*bulkhead.Bulkhead"},
		{"nil_option", bulkhead.New(1), []grpcbackoff.ServerOption{nil}, "nil ServerOption"},
		{"other_code", bulkhead.New(1), []grpcbackoff.ServerOption{grpcbackoff.WithShedCode(codes.Internal)}, "WithShedCode(Internal)"},
		{"zero_pushback", bulkhead.New(1), []grpcbackoff.ServerOption{grpcbackoff.WithPushback(0, time.Second)}, "WithPushback(0s, 1s)"},
		{"max_below_base", bulkhead.New(1), []grpcbackoff.ServerOption{grpcbackoff.WithPushback(2*time.Second, time.Second)}, "WithPushback(2s, 1s)"},
		{"pushback_below_a_millisecond", bulkhead.New(1), []grpcbackoff.ServerOption{grpcbackoff.WithPushback(500*time.Microsecond, time.Second)}, "WithPushback(500µs, 1s)"},
		{"nil_random", bulkhead.New(1), []grpcbackoff.ServerOption{grpcbackoff.WithPushbackRandom(nil)}, "WithPushbackRandom was given a nil function"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran := false
			_, err := grpcbackoff.UnaryServerInterceptor(tc.g, tc.opts...)(context.Background(), nil, &grpc.UnaryServerInfo{}, func(context.Context, any) (any, error) {
				ran = true
				return nil, nil
			})
			wantCode(t, err, codes.Internal)
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), backoff.ErrInvalidConfiguration.Error()) {
				t.Errorf("error %q does not name %q as an invalid configuration", err, tc.want)
			}
			err = grpcbackoff.StreamServerInterceptor(tc.g, tc.opts...)(nil, &fakeServerStream{ctx: context.Background()}, &grpc.StreamServerInfo{}, func(any, grpc.ServerStream) error {
				ran = true
				return nil
			})
			wantCode(t, err, codes.Internal)
			if ran {
				t.Error("the handler ran")
			}
		})
	}
}

// fakeServerStream is a grpc.ServerStream with a context and a trailer,
// for the calls that never reach a real stream.
type fakeServerStream struct {
	grpc.ServerStream
	ctx     context.Context
	trailer metadata.MD
}

func (s *fakeServerStream) Context() context.Context  { return s.ctx }
func (s *fakeServerStream) SetTrailer(md metadata.MD) { s.trailer = metadata.Join(s.trailer, md) }
