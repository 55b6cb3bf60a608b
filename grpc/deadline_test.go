package grpcbackoff_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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
