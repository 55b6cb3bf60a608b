package grpcbackoff_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/bulkhead"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/hedge"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// numbers is a guard that admits everything and records the attempt
// number of each call it admitted, and how many it was told the end of.
type numbers struct {
	mu       sync.Mutex
	attempts []int
	recorded int
}

func (g *numbers) Allow(_ context.Context, c guard.Call) (guard.Permit, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.attempts = append(g.attempts, c.Attempt)
	return guard.Permit{}, nil
}

func (g *numbers) Record(guard.Permit, guard.Outcome) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.recorded++
}

func (g *numbers) seen() ([]int, int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.attempts), g.recorded
}

// A guard of WithCallGuards sees a call once, outside the retry stage;
// one of WithAttemptGuards sees each attempt, with the retry stage's
// number, which is the number the server is told: the interceptor counts
// nothing of its own.
func TestGuardsByPlacementUnary(t *testing.T) {
	e := &echo{unary: func(_ context.Context, n int, in string) (string, error) {
		if n < 3 {
			return "", unavailable()
		}
		return in, nil
	}}
	call1, each := &numbers{}, &numbers{}
	clk := spectest.NewClock()
	cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(
		retrying(clk, 3), grpcbackoff.WithCallGuards(call1), grpcbackoff.WithAttemptGuards(each))))
	var err error
	spectest.Drive(t, clk, nil, func() { _, err = call(context.Background(), cc, "hi") })
	if err != nil {
		t.Fatal(err)
	}
	checkPlacement(t, e, call1, each)
}

// Streams place their guards alike: the call guards around all of a
// stream's attempts, the attempt guards around each stream opened.
func TestGuardsByPlacementStream(t *testing.T) {
	e := &echo{watch: func(n int, in string, ss grpc.ServerStream) error {
		if n < 3 {
			return unavailable()
		}
		return ss.SendMsg(wrapperspb.String(in))
	}}
	call1, each := &numbers{}, &numbers{}
	clk := spectest.NewClock()
	cc := streamClient(t, e, clk, 3, grpcbackoff.WithCallGuards(call1), grpcbackoff.WithAttemptGuards(each))
	var got []string
	var err error
	spectest.Drive(t, clk, nil, func() { got, err = watch(context.Background(), cc, "hi") })
	if err != nil || !slices.Equal(got, []string{"hi"}) {
		t.Fatalf("watch = %q, %v; want [hi], nil", got, err)
	}
	checkPlacement(t, e, call1, each)
}

// checkPlacement checks that a call of three attempts passed the call
// guard once and the attempt guard three times, numbered 1 to 3 as the
// server was told.
func checkPlacement(t *testing.T, e *echo, call1, each *numbers) {
	t.Helper()
	if got, rec := call1.seen(); !slices.Equal(got, []int{1}) || rec != 1 {
		t.Errorf("the call guard admitted attempts %v and recorded %d; want [1] and 1", got, rec)
	}
	got, rec := each.seen()
	if !slices.Equal(got, []int{1, 2, 3}) || rec != 3 {
		t.Errorf("the attempt guard admitted attempts %v and recorded %d; want [1 2 3] and 3", got, rec)
	}
	var told []int
	for _, s := range attemptsSeen(e) {
		n := 0
		if s != "" {
			var err error
			if n, err = strconv.Atoi(s); err != nil {
				t.Fatal(err)
			}
		}
		told = append(told, n+1)
	}
	if !slices.Equal(told, got) {
		t.Errorf("the server was told attempts %v, the attempt guard saw %v", told, got)
	}
}

// The attempt numbers the server is told are those the retry stage gives
// its instrumenters (backoff.State's Number).
func TestAttemptNumbersAreTheRetryStages(t *testing.T) {
	e := &echo{unary: func(context.Context, int, string) (string, error) { return "", unavailable() }}
	rec := &stateRecorder{}
	clk := spectest.NewClock()
	cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(
		retrying(clk, 4), grpcbackoff.WithRetry(backoff.WithInstrumenter(rec)))))
	var err error
	spectest.Drive(t, clk, nil, func() { _, err = call(context.Background(), cc, "hi") })
	wantCode(t, err, codes.Unavailable)
	if got, want := attemptsSeen(e), []string{"", "1", "2", "3"}; !slices.Equal(got, want) {
		t.Errorf("grpc-previous-rpc-attempts %q, want %q", got, want)
	}
	if got := rec.numbers(); !slices.Equal(got, []int{1, 2, 3, 4}) {
		t.Errorf("the instrumenter saw attempts %v, want [1 2 3 4]", got)
	}
	if be := backoffError(t, err); be.Attempts != 4 || !errors.Is(be.Cause, backoff.ErrExhausted) {
		t.Errorf("Cause %v after %d attempts, want ErrExhausted after 4", be.Cause, be.Attempts)
	}
}

// stateRecorder is an Instrumenter that records the number of every
// attempt it is told of before it starts.
type stateRecorder struct {
	mu  sync.Mutex
	got []int
}

func (r *stateRecorder) BeforeAttempt(ctx context.Context, s backoff.State) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, s.Number)
	return ctx
}

func (r *stateRecorder) AfterAttempt(context.Context, backoff.State) {}

func (r *stateRecorder) numbers() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// A panic in the rest of the chain goes on to the caller, after the
// guards it passed were told: the bulkheads around the call and around the
// attempt give their slots back, no attempt follows, and the next call
// goes through.
func TestUnaryPanicGoesOn(t *testing.T) {
	outer, inner := bulkhead.New(1), bulkhead.New(1)
	icpt := grpcbackoff.UnaryClientInterceptor(grpcbackoff.WithRetry(backoff.WithMaxTries(3)),
		grpcbackoff.WithCallGuards(outer), grpcbackoff.WithAttemptGuards(inner))
	calls := 0
	panicking := func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error {
		calls++
		panic("the invoker's own")
	}
	func() {
		defer func() {
			if r := recover(); r != "the invoker's own" {
				t.Errorf("recovered %v, want the invoker's panic", r)
			}
		}()
		_ = icpt(context.Background(), callMethod, nil, nil, nil, panicking)
		t.Error("the call returned")
	}()
	if calls != 1 {
		t.Errorf("%d attempts after a panic, want 1", calls)
	}
	ok := func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error { return nil }
	if err := icpt(context.Background(), callMethod, nil, nil, nil, ok); err != nil {
		t.Errorf("the call after the panic: %v, want nil (the slots given back)", err)
	}
}

// A hedged call passes the call guards once, before hedge.Do: a refusal
// there ends it with UNAVAILABLE and the guard's error, before any
// attempt.
func TestHedgedCallRefusedByACallGuard(t *testing.T) {
	full := bulkhead.New(1)
	if _, err := full.Allow(context.Background(), guardCall); err != nil {
		t.Fatal(err)
	}
	h := hedge.New(hedge.WithDelay(time.Hour), hedge.WithClock(spectest.NewClock()))
	icpt := grpcbackoff.UnaryClientInterceptor(grpcbackoff.WithCallGuards(full), grpcbackoff.WithHedging(h, callMethod))
	invoked := false
	err := icpt(context.Background(), callMethod, nil, wrapperspb.String(""), nil, func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error {
		invoked = true
		return nil
	})
	wantCode(t, err, codes.Unavailable)
	if invoked || !errors.Is(err, bulkhead.ErrBulkheadFull) {
		t.Errorf("error %v (invoked: %v), want the bulkhead's refusal and no attempt", err, invoked)
	}
}
