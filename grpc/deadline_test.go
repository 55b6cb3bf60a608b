package grpcbackoff_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// hangingInvoker is the rest of a chain whose server never answers: each
// attempt ends when its context does, with the status gRPC gives it then.
// It records the deadline of each attempt.
type hangingInvoker struct {
	deadlines []time.Time
	answerAt  int // the attempt, from 1, that succeeds at once; 0 for none
}

func (h *hangingInvoker) invoke(ctx context.Context, _ string, _, _ any, _ *grpc.ClientConn, _ ...grpc.CallOption) error {
	dl, _ := ctx.Deadline()
	h.deadlines = append(h.deadlines, dl)
	if len(h.deadlines) == h.answerAt {
		return nil
	}
	<-ctx.Done()
	return status.FromContextError(ctx.Err()).Err()
}

// An attempt cut short by its own deadline (a Timeout stage inside the
// retry stage) is retried while the caller's context is alive; one cut
// short by the caller's deadline is not, even with DEADLINE_EXCEEDED among
// the codes retried. On testing/synctest's virtual time, with an invoker
// that behaves as gRPC does when the server never answers.
func TestUnaryDeadlines(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     []grpcbackoff.Option
		answerAt int
		attempts int
		code     codes.Code
		cause    error
	}{
		// Attempts of 1 s in a call of 2.5 s: two time out on their own,
		// and a third is not started: the 0.5 s left could not hold an
		// attempt of the 1 s the last one took (the driver's deadline rule).
		{"caller_deadline_ends_the_call", nil, 0, 2, codes.DeadlineExceeded, context.DeadlineExceeded},
		{"caller_deadline_even_if_retryable", []grpcbackoff.Option{grpcbackoff.WithRetryableCodes(codes.Unavailable, codes.DeadlineExceeded)}, 0, 2, codes.DeadlineExceeded, context.DeadlineExceeded},
		{"attempt_deadline_is_retried", nil, 2, 2, codes.OK, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				icpt := grpcbackoff.UnaryClientInterceptor(append([]grpcbackoff.Option{
					grpcbackoff.WithRetry(backoff.WithMaxTries(5), backoff.WithBackOff(&backoff.ZeroBackOff{})),
					grpcbackoff.WithAttemptTimeout(time.Second),
				}, tc.opts...)...)
				ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
				defer cancel()
				callerDeadline, _ := ctx.Deadline()
				inv := &hangingInvoker{answerAt: tc.answerAt}
				err := icpt(ctx, callMethod, nil, nil, nil, inv.invoke)
				if len(inv.deadlines) != tc.attempts {
					t.Fatalf("%d attempts, want %d (err %v)", len(inv.deadlines), tc.attempts, err)
				}
				for i, dl := range inv.deadlines {
					if dl.After(callerDeadline) {
						t.Errorf("attempt %d had deadline %v, after the caller's %v", i+1, dl, callerDeadline)
					}
				}
				if tc.code == codes.OK {
					if err != nil {
						t.Fatalf("err %v, want nil", err)
					}
					return
				}
				wantCode(t, err, tc.code)
				if be := backoffError(t, err); !errors.Is(be.Cause, tc.cause) {
					t.Errorf("Cause %v, want %v", be.Cause, tc.cause)
				}
			})
		})
	}
}

// hangingStream is a client stream whose server never answers: RecvMsg
// ends when the stream's context does, with the status gRPC gives it then.
type hangingStream struct {
	grpc.ClientStream
	ctx context.Context
}

func (s *hangingStream) RecvMsg(any) error {
	<-s.ctx.Done()
	return status.FromContextError(s.ctx.Err()).Err()
}
func (s *hangingStream) Header() (metadata.MD, error) { return nil, s.ctx.Err() }
func (s *hangingStream) Trailer() metadata.MD         { return nil }
func (s *hangingStream) Context() context.Context     { return s.ctx }

// WithAttemptTimeout bounds each attempt of a stream: a stream whose server
// never answers is cut short after the attempt's time and opened again,
// while the caller's context is alive, until the attempts run out. On
// testing/synctest's virtual time; the bubble also checks that the
// stream's goroutine ends with the call.
func TestStreamAttemptTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		icpt := grpcbackoff.StreamClientInterceptor(
			grpcbackoff.WithRetry(backoff.WithMaxTries(2), backoff.WithBackOff(&backoff.ZeroBackOff{})),
			grpcbackoff.WithAttemptTimeout(time.Second),
		)
		start := time.Now()
		var opened []time.Duration // each stream's time, from its opening to its deadline
		streamer := func(ctx context.Context, _ *grpc.StreamDesc, _ *grpc.ClientConn, _ string, _ ...grpc.CallOption) (grpc.ClientStream, error) {
			dl, _ := ctx.Deadline()
			opened = append(opened, time.Until(dl))
			return &hangingStream{ctx: ctx}, nil
		}
		cs, err := icpt(context.Background(), watchDesc, nil, watchMethod, streamer)
		if err != nil {
			t.Fatal(err)
		}
		err = cs.RecvMsg(new(wrapperspb.StringValue))
		wantCode(t, err, codes.DeadlineExceeded)
		if !slices.Equal(opened, []time.Duration{time.Second, time.Second}) {
			t.Errorf("streams opened with %v to their deadlines, want two of 1s", opened)
		}
		if be := backoffError(t, err); be.Attempts != 2 || !errors.Is(be.Cause, backoff.ErrExhausted) {
			t.Errorf("Cause %v after %d attempts, want ErrExhausted after 2", be.Cause, be.Attempts)
		}
		if got := time.Since(start); got != 2*time.Second {
			t.Errorf("the call took %v, want the two attempts' 2s", got)
		}
	})
}
