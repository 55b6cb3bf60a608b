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

// WithPushbackRandom fixes the spread: a wait of d is d + u × (d + 1 ms),
// in whole milliseconds, and a draw out of [0, 1) is taken as its nearest
// bound.
func TestServerPushbackRandom(t *testing.T) {
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
		{"half", 0.5, nil, 1500 * time.Millisecond},         // 1000 + 0.5 × 1001, cut down
		{"top", math.Nextafter(1, 0), nil, 2 * time.Second}, // the last millisecond below 2d + 1 ms
		{"nan", math.NaN(), nil, time.Second},               // taken as 0
		{"above_one", 3, nil, 2 * time.Second},              // taken as just below 1
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
		for range 2 {
			if _, err := l.Allow(context.Background(), guard.Call{Attempt: 1}); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		queued := make(chan error, 2)
		for range 2 {
			go func() {
				_, err := l.Allow(ctx, guard.Call{Attempt: 1})
				queued <- err
			}()
		}
		synctest.Wait() // both wait in the queue
		if got := shedOnce(t, l, draw(0.25)); got != 2500*time.Millisecond {
			t.Errorf("pushback %v, want 1 s × 4/2 = 2 s, spread by 0.25 × 2001 ms: 2.5 s", got)
		}
		cancel()
		for range 2 {
			if err := <-queued; !errors.Is(err, context.Canceled) {
				t.Errorf("a queued caller ended with %v", err)
			}
		}
	})
}
