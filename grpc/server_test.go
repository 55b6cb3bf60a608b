package grpcbackoff_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/chaos"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	"github.com/herdsafe/backoff/throttle"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// shedServer serves e with the unary and stream server interceptors of g.
func shedServer(t *testing.T, e *echo, g guard.Guard, opts ...grpcbackoff.ServerOption) string {
	t.Helper()
	return serve(t, e,
		grpc.UnaryInterceptor(grpcbackoff.UnaryServerInterceptor(g, opts...)),
		grpc.StreamInterceptor(grpcbackoff.StreamServerInterceptor(g, opts...)))
}

// holding returns a service whose calls whose request is "hold" wait
// until release is closed, telling held when they hold their slot.
func holding(held chan<- struct{}, release <-chan struct{}) *echo {
	return &echo{
		unary: func(_ context.Context, _ int, in string) (string, error) {
			if in == "hold" {
				held <- struct{}{}
				<-release
			}
			return in, nil
		},
		watch: func(_ int, in string, ss grpc.ServerStream) error {
			if in == "hold" {
				held <- struct{}{}
				<-release
			}
			return send(ss, in)
		},
	}
}

// pushbackOf returns the pushback a shed call's trailer carries.
func pushbackOf(t *testing.T, trailer metadata.MD) time.Duration {
	t.Helper()
	vals := trailer.Get(grpcbackoff.PushbackKey)
	if len(vals) != 1 {
		t.Fatalf("trailer %v: want one %s", trailer, grpcbackoff.PushbackKey)
	}
	ms, err := strconv.Atoi(vals[0])
	if err != nil || ms < 0 {
		t.Fatalf("%s %q is not a wait", grpcbackoff.PushbackKey, vals[0])
	}
	return time.Duration(ms) * time.Millisecond
}

// wantWithin fails unless d is in [lo, hi] and whole milliseconds.
func wantWithin(t *testing.T, d, lo, hi time.Duration) {
	t.Helper()
	if d < lo || d > hi || d%time.Millisecond != 0 {
		t.Errorf("pushback %v, want whole milliseconds in [%v, %v]", d, lo, hi)
	}
}

// spreadOf is the range of the pushback sent for a wait of d: [d, 2d +
// 1 ms) in whole milliseconds, d rounded up to them at least.
func spreadOf(d time.Duration) (lo, hi time.Duration) {
	return (d + time.Millisecond - 1).Truncate(time.Millisecond), (2*d + time.Millisecond - 1).Truncate(time.Millisecond)
}

// A bulkhead's refusal is answered with UNAVAILABLE, without running the
// handler, and a pushback of the base wait times the bulkhead's load,
// spread: in [d, 2d], and never above the maximum.
func TestServerBulkheadSheds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		queue    int           // callers queued behind the one in flight
		lo, hi   time.Duration // the range of the pushback
		opts     []grpcbackoff.ServerOption
		wantCode codes.Code
	}{
		{"full", 0, time.Second, 2 * time.Second, nil, codes.Unavailable},
		{"queue_full", 1, 200 * time.Millisecond, 400 * time.Millisecond,
			[]grpcbackoff.ServerOption{grpcbackoff.WithPushback(100*time.Millisecond, time.Minute)}, codes.Unavailable},
		{"resource_exhausted", 0, time.Second, 2 * time.Second,
			[]grpcbackoff.ServerOption{grpcbackoff.WithShedCode(codes.ResourceExhausted)}, codes.ResourceExhausted},
		{"capped", 0, time.Second, 1500 * time.Millisecond,
			[]grpcbackoff.ServerOption{grpcbackoff.WithPushback(time.Second, 1500*time.Millisecond)}, codes.Unavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A queued caller starts its maximum wait's timer on clk: that
			// is how the test knows it is queued.
			clk := spectest.NewClock()
			bh := bulkhead.New(1)
			if tc.queue > 0 {
				bh = bulkhead.New(1, bulkhead.WithQueue(tc.queue), bulkhead.WithMaxWait(time.Hour), bulkhead.WithClock(clk))
			}
			held, release := make(chan struct{}, 2), make(chan struct{})
			e := holding(held, release)
			cc := dial(t, shedServer(t, e, bh, tc.opts...))
			done := make(chan error, 1+tc.queue)
			for range 1 + tc.queue {
				go func() {
					_, err := call(context.Background(), cc, "hold")
					done <- err
				}()
				select {
				case <-held: // in flight
				case <-clk.Waits: // about to queue: its timer is made first
					for bh.Stats().Queued == 0 {
						runtime.Gosched()
					}
				case err := <-done:
					t.Fatalf("a call to hold failed: %v", err)
				}
			}
			var trailer metadata.MD
			_, err := call(context.Background(), cc, "shed", grpc.Trailer(&trailer))
			wantCode(t, err, tc.wantCode)
			wantWithin(t, pushbackOf(t, trailer), tc.lo, tc.hi)
			close(release)
			for range 1 + tc.queue {
				if err := <-done; err != nil {
					t.Errorf("a held call failed: %v", err)
				}
			}
			for _, s := range e.calls() {
				if s.in == "shed" {
					t.Error("the shed call reached its handler")
				}
			}
		})
	}
}

// failing is a service whose unary calls fail with code, but those whose
// request is "ok".
func failing(code codes.Code) *echo {
	return &echo{unary: func(_ context.Context, _ int, in string) (string, error) {
		if in == "ok" {
			return in, nil
		}
		return "", status.Error(code, "handler failed")
	}}
}

// An open breaker asks for the time it stays open, jittered: the clients
// come back after it half-opens, spread over as long again.
func TestServerBreakerPushback(t *testing.T) {
	cb := breaker.New(breaker.WithConsecutiveFailures(1), breaker.WithOpenDuration(10*time.Second), breaker.WithClock(spectest.NewClock()))
	e := failing(codes.Internal)
	cc := dial(t, shedServer(t, e, cb))
	_, err := call(context.Background(), cc, "fail")
	wantCode(t, err, codes.Internal) // the handler's own error, unchanged: it trips the breaker
	var trailer metadata.MD
	_, err = call(context.Background(), cc, "ok", grpc.Trailer(&trailer))
	wantCode(t, err, codes.Unavailable)
	if len(e.calls()) != 1 {
		t.Errorf("the server ran %d handlers, want 1", len(e.calls()))
	}
	wantWithin(t, pushbackOf(t, trailer), 10*time.Second, 20*time.Second) // the open duration; the clock did not move
}

// A throttle asks for the base wait over 1 − p, p its probability of
// rejection.
func TestServerThrottlePushback(t *testing.T) {
	th := throttle.New(throttle.WithClock(spectest.NewClock()), throttle.WithRandom(func() float64 { return 0 }), throttle.WithMaxRejection(1))
	e := failing(codes.Internal)
	cc := dial(t, shedServer(t, e, th, grpcbackoff.WithPushback(100*time.Millisecond, time.Minute)))
	for range 10 { // the handler's failures, then the throttle's rejections
		if _, err := call(context.Background(), cc, "fail"); err == nil {
			t.Fatal("a failing call succeeded")
		}
	}
	var trailer metadata.MD
	_, err := call(context.Background(), cc, "ok", grpc.Trailer(&trailer))
	wantCode(t, err, codes.Unavailable)
	p := th.Stats().Probability
	if p <= 0.5 {
		t.Fatalf("probability %v: the throttle should reject most calls", p)
	}
	lo, hi := spreadOf(time.Duration(float64(100*time.Millisecond) / (1 - p)))
	wantWithin(t, pushbackOf(t, trailer), lo, hi)
}

// A budget of the server's own sees the clients' attempt numbers, from
// grpc-previous-rpc-attempts: once spent, it sheds retries and admits
// first attempts.
func TestServerBudgetShedsRetries(t *testing.T) {
	b := budget.NewTokenBucket(budget.WithMaxTokens(2))
	e := failing(codes.Internal)
	cc := dial(t, shedServer(t, e, b))
	retry := metadata.AppendToOutgoingContext(context.Background(), grpcbackoff.PreviousAttemptsKey, "1")
	for range 2 { // spend the tokens
		if _, err := call(context.Background(), cc, "fail"); status.Code(err) != codes.Internal {
			t.Fatal(err)
		}
	}
	var trailer metadata.MD
	_, err := call(retry, cc, "ok", grpc.Trailer(&trailer))
	wantCode(t, err, codes.Unavailable)
	wantWithin(t, pushbackOf(t, trailer), time.Second, 2*time.Second)
	if _, err := call(context.Background(), cc, "ok"); err != nil {
		t.Errorf("a first attempt was refused: %v", err)
	}
}

// The handler's own errors pass unchanged, with no pushback; so does an
// error a chaos guard injects, which is the call's own failure, not a
// refusal.
func TestServerPassesTheCallsOwnErrors(t *testing.T) {
	injected := status.Error(codes.DataLoss, "injected")
	for _, tc := range []struct {
		name string
		g    guard.Guard
		in   string
		code codes.Code
	}{
		{"handler", bulkhead.New(1), "fail", codes.NotFound},
		{"chaos", chaos.New(chaos.Config{ErrorProbability: 1, InjectedError: injected}), "ok", codes.DataLoss},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := failing(codes.NotFound)
			cc := dial(t, shedServer(t, e, tc.g))
			var trailer metadata.MD
			_, err := call(context.Background(), cc, tc.in, grpc.Trailer(&trailer))
			wantCode(t, err, tc.code)
			if vals := trailer.Get(grpcbackoff.PushbackKey); len(vals) != 0 {
				t.Errorf("pushback %q on an error that is not a refusal", vals)
			}
		})
	}
}

// A stream is held by the guard for as long as its handler runs; another
// is shed, with the pushback in its trailer.
func TestServerStreamSheds(t *testing.T) {
	held, release := make(chan struct{}, 1), make(chan struct{})
	e := holding(held, release)
	cc := dial(t, shedServer(t, e, bulkhead.New(1)))
	done := make(chan error, 1)
	go func() {
		_, err := watch(context.Background(), cc, "hold")
		done <- err
	}()
	<-held
	cs, err := cc.NewStream(context.Background(), watchDesc, watchMethod)
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.SendMsg(wrapperspb.String("shed")); err != nil {
		t.Fatal(err)
	}
	err = cs.RecvMsg(new(wrapperspb.StringValue))
	wantCode(t, err, codes.Unavailable)
	wantWithin(t, pushbackOf(t, cs.Trailer()), time.Second, 2*time.Second)
	close(release)
	if err := <-done; err != nil {
		t.Errorf("the held stream failed: %v", err)
	}
}

// A client that gave up gets its context's status, and no pushback: there
// is nobody to push back.
func TestServerClientGone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ss := &fakeServerStream{ctx: ctx}
	err := grpcbackoff.StreamServerInterceptor(bulkhead.New(1))(nil, ss, &grpc.StreamServerInfo{}, func(any, grpc.ServerStream) error {
		t.Error("the handler ran")
		return nil
	})
	wantCode(t, err, codes.Canceled)
	if len(ss.trailer) != 0 {
		t.Errorf("trailer %v, want none", ss.trailer)
	}
}

// The loop closed: a client of this package, shed by a server with
// pushback, waits what the server asked instead of its Policy's own wait,
// then succeeds.
func TestServerPushbackIsObeyed(t *testing.T) {
	held, release := make(chan struct{}, 1), make(chan struct{})
	e := holding(held, release)
	addr := shedServer(t, e, bulkhead.New(1), grpcbackoff.WithPushback(5*time.Second, 30*time.Second))
	plain := dial(t, addr)
	clk := spectest.NewClock()
	cc := dial(t, addr, grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(retrying(clk, 3))))
	done := make(chan error, 1)
	go func() {
		_, err := call(context.Background(), plain, "hold")
		done <- err
	}()
	<-held
	var err error
	waits := spectest.Drive(t, clk, func(_ int, d time.Duration) {
		close(release) // the slot frees while the client waits
		if err := <-done; err != nil {
			t.Errorf("the held call failed: %v", err)
		}
		clk.Add(d)
	}, func() { _, err = call(context.Background(), cc, "again") })
	if err != nil {
		t.Fatal(err)
	}
	if len(waits) != 1 {
		t.Fatalf("waits %v, want one", waits)
	}
	wantWithin(t, waits[0], 5*time.Second, 10*time.Second) // the server's pushback, spread, not the Policy's 1 s
}
