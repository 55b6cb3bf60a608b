package grpcbackoff_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/bulkhead"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The status of a call that made no attempt says why: UNAVAILABLE with the
// refusal's message for a guard's refusal, the context's code for a
// context that ended first; %+v prints the retries' account.
func TestCallErrorWithoutAttempt(t *testing.T) {
	full := bulkhead.New(1)
	if _, err := full.Allow(context.Background(), guardCall); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name  string
		ctx   context.Context
		opts  []grpcbackoff.Option
		code  codes.Code
		match error
	}{
		{"refused", context.Background(), []grpcbackoff.Option{grpcbackoff.WithCallGuards(full)}, codes.Unavailable, bulkhead.ErrBulkheadFull},
		{"cancelled", cancelled, nil, codes.Canceled, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			invoked := false
			err := grpcbackoff.UnaryClientInterceptor(tc.opts...)(tc.ctx, callMethod, nil, nil, nil, func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error {
				invoked = true
				return nil
			})
			wantCode(t, err, tc.code)
			if invoked || !errors.Is(err, tc.match) {
				t.Errorf("error %v (made: %v), want one matching %v, without an attempt", err, invoked, tc.match)
			}
			if s := fmt.Sprintf("%+v", err); !strings.Contains(s, "0 attempts") && !strings.Contains(s, "gave up") {
				t.Errorf("%%+v = %q, want the account of the retries", s)
			}
			if s := fmt.Sprint(err); !strings.HasPrefix(s, "rpc error: code = "+tc.code.String()) {
				t.Errorf("%%v = %q, want a status error's text", s)
			}
		})
	}
}

// An error the rest of the chain returns that is not a status reads as
// UNKNOWN, as package status converts it, with its message.
func TestCallErrorOfAPlainError(t *testing.T) {
	plain := errors.New("an interceptor's own error")
	err := grpcbackoff.UnaryClientInterceptor()(context.Background(), callMethod, nil, nil, nil, func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error {
		return plain
	})
	wantCode(t, err, codes.Unknown)
	if status.Convert(err).Message() != plain.Error() || !errors.Is(err, plain) {
		t.Errorf("error %v, want UNKNOWN with the error's message, matching it", err)
	}
	if be := backoffError(t, err); !errors.Is(be.Cause, backoff.ErrPermanent) || be.Attempts != 1 {
		t.Errorf("Cause %v after %d attempts, want ErrPermanent after 1", be.Cause, be.Attempts)
	}
}
