package grpcbackoff_test

import (
	"context"
	"math"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/bulkhead"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
	"github.com/herdsafe/backoff/guard"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
)

// immediate returns the retry stage's options of n attempts with no
// wait, so that a chain of loopback servers spends no time waiting.
func immediate(n uint) grpcbackoff.Option {
	return grpcbackoff.WithRetry(backoff.WithMaxTries(n), backoff.WithBackOff(&backoff.ZeroBackOff{}))
}

// Under pressure, a retry is refused before the guard is asked, with a
// pushback of -1 (no retry), while a first call is served.
func TestServerShedsRetriesFirst(t *testing.T) {
	b := bulkhead.New(5)
	for range 4 { // 4 of 5 places taken: pressure 0.8
		p, err := b.Allow(context.Background(), guard.Call{Attempt: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Record(p, guard.Outcome{})
	}
	e := failing(codes.Internal)
	cc := dial(t, shedServer(t, e, b))
	retry := metadata.AppendToOutgoingContext(context.Background(), grpcbackoff.PreviousAttemptsKey, "1")
	var trailer metadata.MD
	_, err := call(retry, cc, "ok", grpc.Trailer(&trailer))
	wantCode(t, err, codes.Unavailable)
	if got := trailer.Get(grpcbackoff.PushbackKey); len(got) != 1 || got[0] != "-1" || len(e.calls()) != 0 {
		t.Errorf("a retry under pressure got pushback %v and ran %d times; want -1, not run", got, len(e.calls()))
	}
	if _, err := call(context.Background(), cc, "ok"); err != nil || len(e.calls()) != 1 {
		t.Errorf("a first call under pressure: %v; want it served", err)
	}

	// +Inf leaves retries to the guard.
	in := grpcbackoff.UnaryServerInterceptor(b, grpcbackoff.WithRetryPressure(math.Inf(1)))
	cc = dial(t, serveMore(t, e, grpc.UnaryInterceptor(in)))
	if _, err := call(retry, cc, "ok"); err != nil {
		t.Errorf("with +Inf, a retry under pressure: %v; want it served", err)
	}
}

// A call whose deadline is sooner than the time calls wait in the guard's
// queue is refused at once, with a pushback of -1, without queueing.
func TestServerRefusesLateCalls(t *testing.T) {
	clk := clock.NewMock()
	b := bulkhead.New(1, bulkhead.WithQueue(10))
	release := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{})}
	var mu sync.Mutex
	ran := map[string]bool{}
	e := &echo{unary: func(_ context.Context, _ int, in string) (string, error) {
		mu.Lock()
		ran[in] = true
		mu.Unlock()
		if ch := release[in]; ch != nil {
			<-ch
		}
		return in, nil
	}}
	cc := dial(t, shedServer(t, e, b, grpcbackoff.WithShedClock(clk)))
	var wg sync.WaitGroup
	async := func(in string) {
		wg.Go(func() {
			if _, err := call(context.Background(), cc, in); err != nil {
				t.Errorf("call %s: %v", in, err)
			}
		})
	}
	async("a")
	waitUntil(t, func() bool { return b.Stats().InFlight == 1 })
	async("b")
	waitUntil(t, func() bool { return b.Stats().Queued == 1 })
	clk.Add(2 * time.Second) // b waits 2 s in the queue
	close(release["a"])
	waitUntil(t, func() bool { mu.Lock(); defer mu.Unlock(); return ran["b"] })
	async("c") // queued behind b
	waitUntil(t, func() bool { return b.Stats().Queued == 1 })

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var trailer metadata.MD
	_, err := call(ctx, cc, "late", grpc.Trailer(&trailer))
	wantCode(t, err, codes.Unavailable)
	if got := trailer.Get(grpcbackoff.PushbackKey); len(got) != 1 || got[0] != "-1" || b.Stats().Queued != 1 {
		t.Errorf("a call with 1 s left behind a 2 s queue got pushback %v, queue %d; want -1, not queued", got, b.Stats().Queued)
	}
	close(release["b"])
	wg.Wait()
	if _, err := call(ctx, cc, "late"); err != nil {
		t.Errorf("with no queue, a call with 1 s left: %v; want it served", err)
	}
}

// serveMore starts another server of a test that called serve first:
// serve's check for goroutines left over then runs once every server is
// stopped.
func serveMore(t *testing.T, e *echo, opts ...grpc.ServerOption) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(opts...)
	srv.RegisterService(&echoDesc, e)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(lis)
	}()
	t.Cleanup(func() {
		srv.Stop()
		<-done
	})
	return lis.Addr().String()
}

// waitUntil waits until cond holds, for a goroutine the test started; it
// gives up after a few seconds, which a passing test never reaches.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for a goroutine of the test")
		}
	}
}

// A chain of two gRPC tiers built with this module, whose bottom fails:
// the user's client and the middle tier each try 3 times. Without the
// signal the bottom sees 3 × 3 = 9 calls for one user call; with the
// middle tier behind the server interceptors, it says "do not retry"
// (a pushback of -1) once its own retries are spent, and the bottom sees
// 3.
func TestChainDoesNotMultiply(t *testing.T) {
	for _, tc := range []struct {
		name        string
		withLibrary bool
		want        int
	}{
		{"bare_middle_tier", false, 9},
		{"with_the_signal", true, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bottom := failing(codes.Unavailable)
			down := dial(t, serve(t, bottom), grpc.WithDisableRetry(),
				grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(immediate(3))))
			middle := &echo{unary: func(ctx context.Context, _ int, in string) (string, error) {
				return call(ctx, down, in)
			}}
			var opts []grpc.ServerOption
			if tc.withLibrary {
				opts = append(opts, grpc.UnaryInterceptor(grpcbackoff.UnaryServerInterceptor(bulkhead.New(100))))
			}
			up := dial(t, serveMore(t, middle, opts...), grpc.WithDisableRetry(),
				grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(immediate(3))))
			_, err := call(context.Background(), up, "x")
			wantCode(t, err, codes.Unavailable)
			if got := len(bottom.calls()); got != tc.want {
				t.Errorf("the bottom saw %d calls for one user call, want %d (the middle saw %d)", got, tc.want, len(middle.calls()))
			}
		})
	}
}

// The new server settings refuse what they cannot use: every call fails
// with INTERNAL, naming them.
func TestHopServerSettingsInvalid(t *testing.T) {
	for _, tc := range []struct {
		opt  grpcbackoff.ServerOption
		want string
	}{
		{grpcbackoff.WithRetryPressure(0), "WithRetryPressure(0)"},
		{grpcbackoff.WithRetryPressure(math.NaN()), "WithRetryPressure(NaN)"},
		{grpcbackoff.WithShedClock(nil), "WithShedClock was given a nil clock"},
		{grpcbackoff.WithShedClock((*clock.Mock)(nil)), "WithShedClock was given a nil clock"},
	} {
		in := grpcbackoff.UnaryServerInterceptor(bulkhead.New(1), tc.opt)
		_, err := in(context.Background(), nil, nil, func(context.Context, any) (any, error) {
			t.Error("the handler ran")
			return nil, nil
		})
		wantCode(t, err, codes.Internal)
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v; want it to name %q", err, tc.want)
		}
	}
}
