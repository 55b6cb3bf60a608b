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
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// pushingBack returns a service whose first call fails with code and the
// pushback trailer values vals, and whose later calls succeed.
func pushingBack(code codes.Code, vals ...string) *echo {
	return &echo{unary: func(ctx context.Context, n int, in string) (string, error) {
		if n > 1 {
			return in, nil
		}
		md := metadata.MD{}
		for _, v := range vals {
			md.Append(grpcbackoff.PushbackKey, v)
		}
		if err := grpc.SetTrailer(ctx, md); err != nil {
			return "", err
		}
		return "", status.Error(code, "pushed back")
	}}
}

// A pushback of n ms makes the next wait exactly n ms, in place of the
// Policy's own; 0 retries at once.
func TestPushbackSetsTheNextWait(t *testing.T) {
	for _, tc := range []struct {
		val  string
		want []time.Duration
	}{
		{"1500", []time.Duration{1500 * time.Millisecond}},
		{"0", nil}, // no timer for a zero wait
		{"30000", []time.Duration{30 * time.Second}},
	} {
		t.Run(tc.val, func(t *testing.T) {
			e := pushingBack(codes.Unavailable, tc.val)
			clk := spectest.NewClock()
			cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(retrying(clk, 3))))
			var err error
			waits := spectest.Drive(t, clk, nil, func() { _, err = call(context.Background(), cc, "hi") })
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(waits, tc.want) {
				t.Errorf("waits %v, want %v", waits, tc.want)
			}
			if len(e.calls()) != 2 {
				t.Errorf("the server saw %d calls, want 2", len(e.calls()))
			}
		})
	}
}

// A negative or malformed pushback asks for no retry: the call ends after
// its first attempt, with the server's status and a Cause that matches
// backoff.ErrRetriesCanceled; so does one longer than WithMaxPushback.
func TestPushbackStopsTheRetries(t *testing.T) {
	for _, tc := range []struct {
		name string
		vals []string
		opts []grpcbackoff.Option
	}{
		{"negative", []string{"-1"}, nil},
		{"not_a_number", []string{"soon"}, nil},
		{"empty", []string{""}, nil},
		{"leading_zero", []string{"0100"}, nil},
		{"plus_sign", []string{"+100"}, nil},
		{"minus_zero", []string{"-0"}, nil},
		{"fraction", []string{"1.5"}, nil},
		{"beyond_32_bits", []string{"2147483648"}, nil},
		{"two_values", []string{"100", "200"}, nil},
		{"longer_than_the_default_maximum", []string{"30001"}, nil},
		{"longer_than_WithMaxPushback", []string{"1001"}, []grpcbackoff.Option{grpcbackoff.WithMaxPushback(time.Second)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := pushingBack(codes.Unavailable, tc.vals...)
			clk := spectest.NewClock()
			cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(append([]grpcbackoff.Option{retrying(clk, 3)}, tc.opts...)...)))
			var err error
			waits := spectest.Drive(t, clk, nil, func() { _, err = call(context.Background(), cc, "hi") })
			wantCode(t, err, codes.Unavailable)
			if got := status.Convert(err).Message(); got != "pushed back" {
				t.Errorf("message %q, want the server's", got)
			}
			be := backoffError(t, err)
			if !errors.Is(be.Cause, backoff.ErrRetriesCanceled) || be.Attempts != 1 {
				t.Errorf("Cause %v after %d attempts, want ErrRetriesCanceled after 1", be.Cause, be.Attempts)
			}
			if len(waits) != 0 || len(e.calls()) != 1 {
				t.Errorf("waits %v and %d calls, want none and 1", waits, len(e.calls()))
			}
			if tc.opts != nil && !errors.Is(err, backoff.ErrRetryAfterTooLong) {
				t.Errorf("a pushback past WithMaxPushback: %v does not match ErrRetryAfterTooLong", err)
			}
		})
	}
}

// A pushback does not make a code retryable that is not: the call ends
// with ErrPermanent; one asking for no retry ends it with
// ErrRetriesCanceled, whatever the code.
func TestPushbackOnACodeThatIsNotRetried(t *testing.T) {
	for _, tc := range []struct {
		val   string
		cause error
	}{
		{"100", backoff.ErrPermanent},
		{"-1", backoff.ErrRetriesCanceled},
	} {
		t.Run(tc.val, func(t *testing.T) {
			e := pushingBack(codes.NotFound, tc.val)
			clk := spectest.NewClock()
			cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(retrying(clk, 3))))
			var err error
			spectest.Drive(t, clk, nil, func() { _, err = call(context.Background(), cc, "hi") })
			wantCode(t, err, codes.NotFound)
			if be := backoffError(t, err); !errors.Is(be.Cause, tc.cause) {
				t.Errorf("Cause %v, want %v", be.Cause, tc.cause)
			}
			if len(e.calls()) != 1 {
				t.Errorf("the server saw %d calls, want 1", len(e.calls()))
			}
		})
	}
}

// A pushback longer than what is left of the caller's deadline ends the
// call at once, without waiting, with the deadline as the Cause and the
// server's status.
func TestPushbackBeyondTheDeadlineReturnsAtOnce(t *testing.T) {
	e := pushingBack(codes.Unavailable, "20000")
	cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(grpcbackoff.WithRetry(backoff.WithMaxTries(3)))))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := call(ctx, cc, "hi")
	wantCode(t, err, codes.Unavailable)
	if be := backoffError(t, err); !errors.Is(be.Cause, context.DeadlineExceeded) {
		t.Errorf("Cause %v, want context.DeadlineExceeded", be.Cause)
	}
	if ctx.Err() != nil {
		t.Errorf("the call returned after the deadline: it waited")
	}
}

// The pushback a caller asks for with grpc.Trailer is delivered too: the
// caller's own options see the last attempt.
func TestPushbackCallersTrailerOption(t *testing.T) {
	e := pushingBack(codes.Unavailable, "-1")
	clk := spectest.NewClock()
	cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(retrying(clk, 3))))
	var trailer metadata.MD
	var err error
	spectest.Drive(t, clk, nil, func() { _, err = call(context.Background(), cc, "hi", grpc.Trailer(&trailer)) })
	if err == nil || !slices.Equal(trailer.Get(grpcbackoff.PushbackKey), []string{"-1"}) {
		t.Errorf("err %v, trailer %v: want the failure and the server's trailer", err, trailer)
	}
}
