package grpcbackoff_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff/bulkhead"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardstate"
	"github.com/herdsafe/backoff/limiter"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
)

// shedOnce runs a stream the guard g refuses through the stream server
// interceptor and returns the pushback of its trailer.
func shedOnce(t *testing.T, g guard.Guard, opts ...grpcbackoff.ServerOption) time.Duration {
	t.Helper()
	ss := &fakeServerStream{ctx: context.Background()}
	err := grpcbackoff.StreamServerInterceptor(g, opts...)(nil, ss, &grpc.StreamServerInfo{}, func(any, grpc.ServerStream) error {
		t.Error("the handler ran")
		return nil
	})
	wantCode(t, err, codes.Unavailable)
	return pushbackOf(t, ss.trailer)
}

// draw is a random source that always draws u.
func draw(u float64) grpcbackoff.ServerOption {
	return grpcbackoff.WithPushbackRandom(func() float64 { return u })
}

// The wait for each state of a guard, and its spread, are package
// pushback's, and tested there: these tests check what the interceptors
// give the rule (WithPushback's base and maximum, WithPushbackRandom's
// draws, the guard and its refusal) and the trailer's unit and range.

// WithPushbackRandom's draw spreads the wait, WithPushback sets its base
// and its maximum, in whole milliseconds, and a wait beyond the trailer's
// largest value is taken as that value.
func TestServerPushbackSettings(t *testing.T) {
	full := bulkhead.New(1)
	if _, err := full.Allow(context.Background(), guard.Call{Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		u    float64
		opts []grpcbackoff.ServerOption
		want time.Duration
	}{
		{"no_spread", 0, nil, time.Second},
		{"half", 0.5, nil, 1500 * time.Millisecond}, // 1000 + 0.5 × 1001, cut down
		{"base", 0.5, []grpcbackoff.ServerOption{grpcbackoff.WithPushback(40*time.Millisecond, time.Minute)}, 60 * time.Millisecond}, // 40 + 0.5 × 41
		{"capped", 0.9, []grpcbackoff.ServerOption{grpcbackoff.WithPushback(time.Second, 1200*time.Millisecond)}, 1200 * time.Millisecond},
		{"beyond_the_trailer", 0, []grpcbackoff.ServerOption{grpcbackoff.WithPushback(math.MaxInt64, math.MaxInt64)}, math.MaxInt32 * time.Millisecond},
		{"max_beyond_the_trailer", 0.9, []grpcbackoff.ServerOption{grpcbackoff.WithPushback(time.Hour*24*365, math.MaxInt64)}, math.MaxInt32 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := shedOnce(t, full, append(tc.opts, draw(tc.u))...); got != tc.want {
				t.Errorf("pushback %v, want %v", got, tc.want)
			}
		})
	}
}

// A limiter at its limit asks for the base wait times (in flight + queued)
// ÷ its current limit.
func TestServerLimiterPushback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := limiter.New(limiter.WithInitialLimit(2), limiter.WithQueue(2))
		release, err := guardstate.Crowd(t, l, 2, 2)
		defer release()
		if !errors.Is(err, limiter.ErrLimitExceeded) {
			t.Fatalf("the limiter at its limit returned %v", err)
		}
		if got := shedOnce(t, l, draw(0.25)); got != 2500*time.Millisecond {
			t.Errorf("pushback %v, want 1 s × 4/2 = 2 s, spread by 0.25 × 2001 ms: 2.5 s", got)
		}
	})
}
