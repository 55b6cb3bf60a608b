package grpcbackoff_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	grpcbackoff "github.com/herdsafe/backoff/grpc"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/hedge"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	slogbackoff "github.com/herdsafe/backoff/slog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// gRFC A6's retry throttling is a token bucket inside the retry stage:
// each UNAVAILABLE takes a token, and once the count is down to half, the
// retries stop, with the budget's refusal as the Cause and the server's
// status as the error's.
func TestThrottlingWithTheTokenBucket(t *testing.T) {
	tb := budget.NewTokenBucket(budget.WithMaxTokens(4), budget.WithIsFailure(grpcbackoff.Codes(codes.Unavailable)))
	e := &echo{unary: func(context.Context, int, string) (string, error) { return "", unavailable() }}
	clk := spectest.NewClock()
	cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(retrying(clk, 5), grpcbackoff.WithAttemptGuards(tb))))
	var err error
	spectest.Drive(t, clk, nil, func() { _, err = call(context.Background(), cc, "hi") })
	// 4 tokens: the first attempt fails (3), a retry is admitted (3 > 2)
	// and fails (2), the next is refused (2 is not above 2).
	wantCode(t, err, codes.Unavailable)
	if !errors.Is(err, budget.ErrBudgetExhausted) {
		t.Errorf("error %v does not match budget.ErrBudgetExhausted", err)
	}
	if be := backoffError(t, err); !errors.Is(be.Cause, backoff.ErrRefused) || be.Attempts != 2 {
		t.Errorf("Cause %v after %d attempts, want the budget's refusal after 2", be.Cause, be.Attempts)
	}
	if len(e.calls()) != 2 {
		t.Errorf("the server saw %d calls, want 2", len(e.calls()))
	}
}

// Only the failures gRFC A6 counts take tokens: the retryable codes, and a
// pushback asking for no retry; an INVALID_ARGUMENT says nothing of the
// server.
func TestThrottlingCountsOnlyA6Failures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fail  func(ctx context.Context) error
		taken float64
	}{
		{"invalid_argument", func(context.Context) error { return status.Error(codes.InvalidArgument, "bad") }, 0},
		{"unavailable", func(context.Context) error { return unavailable() }, 1},
		{"pushback_stop", func(ctx context.Context) error {
			_ = grpc.SetTrailer(ctx, metadata.Pairs(grpcbackoff.PushbackKey, "-1"))
			return status.Error(codes.ResourceExhausted, "quota")
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := budget.NewTokenBucket(budget.WithIsFailure(grpcbackoff.Codes(codes.Unavailable)))
			e := &echo{unary: func(ctx context.Context, _ int, _ string) (string, error) { return "", tc.fail(ctx) }}
			clk := spectest.NewClock()
			cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(retrying(clk, 1), grpcbackoff.WithAttemptGuards(tb))))
			var err error
			spectest.Drive(t, clk, nil, func() { _, err = call(context.Background(), cc, "hi") })
			if err == nil {
				t.Fatal("the call succeeded")
			}
			if got := budget.DefaultMaxTokens - tb.Stats().Tokens; got != tc.taken {
				t.Errorf("%v tokens taken, want %v", got, tc.taken)
			}
		})
	}
}

// A breaker inside the retry stage sees each attempt, and counts the codes
// it is told to: once open, it refuses the call before anything is sent,
// with UNAVAILABLE and its refusal.
func TestBreakerSeesEachAttempt(t *testing.T) {
	cb := breaker.New(breaker.WithConsecutiveFailures(2), breaker.WithIsFailure(grpcbackoff.Codes(codes.Unavailable)), breaker.WithClock(spectest.NewClock()))
	e := &echo{unary: func(_ context.Context, _ int, in string) (string, error) {
		if in == "missing" {
			return "", status.Error(codes.NotFound, "no such thing")
		}
		return "", unavailable()
	}}
	clk := spectest.NewClock()
	cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(retrying(clk, 2), grpcbackoff.WithAttemptGuards(cb))))
	var err error
	for range 3 { // NOT_FOUND is not the server's failure
		spectest.Drive(t, clk, nil, func() { _, err = call(context.Background(), cc, "missing") })
		wantCode(t, err, codes.NotFound)
	}
	spectest.Drive(t, clk, nil, func() { _, err = call(context.Background(), cc, "hi") }) // two UNAVAILABLE attempts trip it
	wantCode(t, err, codes.Unavailable)
	before := len(e.calls())
	spectest.Drive(t, clk, nil, func() { _, err = call(context.Background(), cc, "hi") })
	wantCode(t, err, codes.Unavailable)
	if !errors.Is(err, breaker.ErrCircuitOpen) || len(e.calls()) != before {
		t.Errorf("error %v and %d more calls: want the breaker's refusal, and none sent", err, len(e.calls())-before)
	}
	if !strings.Contains(status.Convert(err).Message(), "circuit open") {
		t.Errorf("message %q, want the refusal's", status.Convert(err).Message())
	}
}

// Telemetry works as for any Policy: an instrumenter in the retry stage
// sees every attempt, its error a gRPC status.
func TestInstrumenterSeesEachAttempt(t *testing.T) {
	var buf bytes.Buffer
	logs := slogbackoff.New(slog.New(slog.NewTextHandler(&buf, nil))).Named("echo")
	rec := &recorder{}
	e := &echo{unary: func(_ context.Context, n int, in string) (string, error) {
		if n < 3 {
			return "", unavailable()
		}
		return in, nil
	}}
	clk := spectest.NewClock()
	icpt := grpcbackoff.UnaryClientInterceptor(grpcbackoff.WithRetry(backoff.WithClock(clk), backoff.WithMaxTries(3), backoff.WithInstrumenter(logs), backoff.WithInstrumenter(rec)))
	cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(icpt))
	var err error
	spectest.Drive(t, clk, nil, func() { _, err = call(context.Background(), cc, "hi") })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rec.codes(), []codes.Code{codes.Unavailable, codes.Unavailable, codes.OK}; !slices.Equal(got, want) {
		t.Errorf("the instrumenter saw %v, want %v", got, want)
	}
	if n := strings.Count(buf.String(), "retry.attempt="); n != 2 {
		t.Errorf("%d retries logged, want 2:\n%s", n, buf.String())
	}
}

// recorder is an Instrumenter that records the status of every attempt.
type recorder struct {
	mu  sync.Mutex
	got []codes.Code
}

func (r *recorder) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context { return ctx }

func (r *recorder) AfterAttempt(_ context.Context, s backoff.State) {
	if s.Reported {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, status.Code(s.Err))
}

func (r *recorder) codes() []codes.Code {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// counter is a guard that admits everything and counts what it admitted.
type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) Allow(context.Context, guard.Call) (guard.Permit, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return guard.Permit{}, nil
}

func (c *counter) Record(guard.Permit, guard.Outcome) {}

func (c *counter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// A hedged method's call starts a second attempt when the first has not
// answered after the delay, returns the first answer, and cancels the
// other attempt; the call guards see the call once, the attempt guards
// each hedged attempt.
func TestHedging(t *testing.T) {
	firstArrived, loserCancelled := make(chan struct{}), make(chan struct{})
	e := &echo{unary: func(ctx context.Context, _ int, in string) (string, error) {
		if len(metadata.ValueFromIncomingContext(ctx, grpcbackoff.PreviousAttemptsKey)) == 0 { // the first attempt never answers
			close(firstArrived)
			<-ctx.Done()
			close(loserCancelled)
			return "", status.FromContextError(ctx.Err()).Err()
		}
		<-firstArrived // so that the loser is in flight when the hedge wins
		return in + " from attempt 2", nil
	}}
	clk := spectest.NewClock()
	h := hedge.New(hedge.WithDelay(50*time.Millisecond), hedge.WithClock(clk))
	outer, inner := &counter{}, &counter{}
	icpt := grpcbackoff.UnaryClientInterceptor(grpcbackoff.WithCallGuards(outer), grpcbackoff.WithAttemptGuards(inner), grpcbackoff.WithHedging(h, callMethod))
	cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(icpt))
	var out string
	var err error
	waits := spectest.Drive(t, clk, nil, func() { out, err = call(context.Background(), cc, "hi") })
	if err != nil || out != "hi from attempt 2" {
		t.Fatalf("call = %q, %v; want the second attempt's answer", out, err)
	}
	if len(waits) == 0 || waits[0] != 50*time.Millisecond {
		t.Errorf("waits %v, want the hedging delay first", waits)
	}
	<-loserCancelled
	// The attempts race to the server: either may arrive first.
	if got, want := slices.Sorted(slices.Values(attemptsSeen(e))), []string{"", "1"}; !slices.Equal(got, want) {
		t.Errorf("grpc-previous-rpc-attempts %q, want %q", got, want)
	}
	if outer.count() != 1 || inner.count() != 2 {
		t.Errorf("the call guard saw %d calls and the attempt guard %d; want 1 and 2", outer.count(), inner.count())
	}
}

// A code the interceptor does not retry is fatal to a hedged call; one
// Codes accepts, given to hedge.WithRetryable, starts the next attempt at
// once, without waiting for the delay.
func TestHedgingCodes(t *testing.T) {
	t.Run("fatal", func(t *testing.T) {
		e := &echo{unary: func(context.Context, int, string) (string, error) { return "", status.Error(codes.NotFound, "gone") }}
		h := hedge.New(hedge.WithDelay(time.Hour), hedge.WithClock(spectest.NewClock()))
		cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(grpcbackoff.WithHedging(h, callMethod))))
		_, err := call(context.Background(), cc, "hi")
		wantCode(t, err, codes.NotFound)
		if len(e.calls()) != 1 {
			t.Errorf("the server saw %d calls, want 1", len(e.calls()))
		}
	})
	t.Run("non_fatal", func(t *testing.T) {
		e := &echo{unary: func(_ context.Context, n int, in string) (string, error) {
			if n == 1 {
				return "", unavailable()
			}
			return in, nil
		}}
		clk := spectest.NewClock()
		h := hedge.New(hedge.WithDelay(time.Hour), hedge.WithClock(clk), hedge.WithRetryable(grpcbackoff.Codes(codes.Unavailable)))
		cc := dial(t, serve(t, e), grpc.WithUnaryInterceptor(grpcbackoff.UnaryClientInterceptor(grpcbackoff.WithHedging(h, callMethod))))
		var err error
		spectest.Drive(t, clk, func(int, time.Duration) {}, func() { _, err = call(context.Background(), cc, "hi") }) // the hour never passes
		if err != nil || len(e.calls()) != 2 {
			t.Errorf("err %v after %d calls, want nil after 2", err, len(e.calls()))
		}
	})
}
