package grpcbackoff_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// A call that fails with UNAVAILABLE is retried, with the Policy's waits,
// each retry telling the server how many attempts came before it.
func TestUnaryRetriesUnavailable(t *testing.T) {
	e := &echo{unary: func(_ context.Context, n int, in string) (string, error) {
		if n < 3 {
			return "", unavailable()
		}
		return in, nil
	}}
	clk := spectest.NewClock()
	cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(retrying(clk, 3))))

	var out string
	var err error
	waits := spectest.Drive(t, clk, nil, func() { out, err = call(context.Background(), cc, "hi") })
	if err != nil || out != "hi" {
		t.Fatalf("call = %q, %v; want hi, nil", out, err)
	}
	if !slices.Equal(waits, []time.Duration{time.Second, time.Second}) {
		t.Errorf("waits %v, want the Policy's two of 1s", waits)
	}
	if got, want := attemptsSeen(e), []string{"", "1", "2"}; !slices.Equal(got, want) {
		t.Errorf("grpc-previous-rpc-attempts %q, want %q", got, want)
	}
}

// A call that used up its attempts returns the last attempt's status,
// code, message and details unchanged, and unwraps to the *backoff.Error.
func TestUnaryExhaustedKeepsTheStatus(t *testing.T) {
	st, err := status.New(codes.Unavailable, "down for maintenance").WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	e := &echo{unary: func(context.Context, int, string) (string, error) { return "", st.Err() }}
	clk := spectest.NewClock()
	cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(retrying(clk, 3))))

	spectest.Drive(t, clk, nil, func() { _, err = call(context.Background(), cc, "hi") })
	got := status.Convert(err)
	if got.Code() != codes.Unavailable || got.Message() != "down for maintenance" || len(got.Details()) != 1 {
		t.Errorf("status %v %q %v, want the server's, with its detail", got.Code(), got.Message(), got.Details())
	}
	if err.Error() != st.Err().Error() {
		t.Errorf("Error() = %q, want the status error's %q", err.Error(), st.Err().Error())
	}
	be := backoffError(t, err)
	if !errors.Is(be.Cause, backoff.ErrExhausted) || be.Attempts != 3 {
		t.Errorf("Cause %v after %d attempts, want ErrExhausted after 3", be.Cause, be.Attempts)
	}
	if len(e.calls()) != 3 {
		t.Errorf("the server saw %d calls, want 3", len(e.calls()))
	}
}

// Only the retryable codes are retried: UNAVAILABLE by default, others by
// option; any other code ends the call at its first attempt, with its
// status.
func TestUnaryRetriesOnlyRetryableCodes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  []grpcbackoff.Option
		code  codes.Code
		calls int
	}{
		{"default_unavailable", nil, codes.Unavailable, 2},
		{"default_not_found", nil, codes.NotFound, 1},
		{"default_internal", nil, codes.Internal, 1},
		{"default_resource_exhausted", nil, codes.ResourceExhausted, 1},
		{"default_invalid_argument", nil, codes.InvalidArgument, 1},
		{"default_cancelled", nil, codes.Canceled, 1},
		{"default_deadline_exceeded_by_the_server", nil, codes.DeadlineExceeded, 1},
		{"option_resource_exhausted", []grpcbackoff.Option{grpcbackoff.WithRetryableCodes(codes.ResourceExhausted)}, codes.ResourceExhausted, 2},
		{"option_replaces_unavailable", []grpcbackoff.Option{grpcbackoff.WithRetryableCodes(codes.ResourceExhausted)}, codes.Unavailable, 1},
		{"option_deadline_exceeded", []grpcbackoff.Option{grpcbackoff.WithRetryableCodes(codes.DeadlineExceeded)}, codes.DeadlineExceeded, 2},
		{"option_none", []grpcbackoff.Option{grpcbackoff.WithRetryableCodes()}, codes.Unavailable, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &echo{unary: func(context.Context, int, string) (string, error) { return "", status.Error(tc.code, "no") }}
			clk := spectest.NewClock()
			cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(append([]grpcbackoff.Option{retrying(clk, 2)}, tc.opts...)...)))
			var err error
			spectest.Drive(t, clk, nil, func() { _, err = call(context.Background(), cc, "hi") })
			wantCode(t, err, tc.code)
			if got := len(e.calls()); got != tc.calls {
				t.Errorf("the server saw %d calls, want %d", got, tc.calls)
			}
			if be := backoffError(t, err); tc.calls == 1 && !errors.Is(be.Cause, backoff.ErrPermanent) {
				t.Errorf("Cause %v, want ErrPermanent for a code that is not retried", be.Cause)
			}
		})
	}
}

// A call the caller cancels is not retried, whatever the codes retried.
func TestUnaryCallerCancelIsNotRetried(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := &echo{unary: func(sctx context.Context, _ int, _ string) (string, error) {
		cancel()
		<-sctx.Done()
		return "", status.FromContextError(sctx.Err()).Err()
	}}
	clk := spectest.NewClock()
	cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(retrying(clk, 3),
		grpcbackoff.WithRetryableCodes(codes.Unavailable, codes.DeadlineExceeded))))
	var err error
	spectest.Drive(t, clk, nil, func() { _, err = call(ctx, cc, "hi") })
	wantCode(t, err, codes.Canceled)
	if be := backoffError(t, err); !errors.Is(be.Cause, context.Canceled) {
		t.Errorf("Cause %v, want context.Canceled", be.Cause)
	}
	if got := len(e.calls()); got != 1 {
		t.Errorf("the server saw %d calls, want 1", got)
	}
}

// Each attempt goes to the server with the sooner of the caller's deadline
// and its own (a Timeout stage inside the retry stage): an attempt never has
// more time than what is left of the call.
func TestUnaryAttemptsAreBoundedByTheCallersDeadline(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration // WithAttemptTimeout's; -1 for none given
		want    time.Duration // the time each attempt gets, from now
	}{
		{"no_timeout", -1, time.Hour},
		{"zero_timeout_is_none", 0, time.Hour},
		{"shorter_timeout", 10 * time.Minute, 10 * time.Minute},
		{"longer_timeout", 2 * time.Hour, time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &echo{unary: func(_ context.Context, n int, in string) (string, error) {
				if n < 2 {
					return "", unavailable()
				}
				return in, nil
			}}
			clk := spectest.NewClock()
			opts := []grpcbackoff.Option{retrying(clk, 3)}
			if tc.timeout >= 0 {
				opts = append(opts, grpcbackoff.WithAttemptTimeout(tc.timeout))
			}
			cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(opts...)))
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			start := time.Now()
			var err error
			spectest.Drive(t, clk, nil, func() { _, err = call(ctx, cc, "hi") })
			if err != nil {
				t.Fatal(err)
			}
			calls := e.calls()
			if len(calls) != 2 {
				t.Fatalf("the server saw %d calls, want 2", len(calls))
			}
			for i, s := range calls {
				// The server's deadline is its own clock's reading of the
				// attempt's grpc-timeout: a little later than the client's.
				if got := s.deadline.Sub(start); got < tc.want-time.Minute || got > tc.want+time.Minute {
					t.Errorf("attempt %d reached the server with %v to go, want about %v", i+1, got, tc.want)
				}
			}
		})
	}
}

// A status the server sends without a message is kept as is, and the
// reply of a failed attempt does not leak into a later one's.
func TestUnaryReplyIsTheLastAttempts(t *testing.T) {
	e := &echo{unary: func(_ context.Context, n int, in string) (string, error) {
		if n == 1 {
			return "", unavailable()
		}
		return in + "!", nil
	}}
	clk := spectest.NewClock()
	cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(retrying(clk, 2))))
	var out string
	var err error
	spectest.Drive(t, clk, nil, func() { out, err = call(context.Background(), cc, "hi") })
	if err != nil || out != "hi!" {
		t.Fatalf("call = %q, %v; want hi!, nil", out, err)
	}
}
