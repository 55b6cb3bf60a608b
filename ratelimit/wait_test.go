package ratelimit_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	"github.com/herdsafe/backoff/ratelimit"
)

// allowAsync asks l to admit a call on a goroutine of its own and returns
// the channel of its result.
func allowAsync(l *ratelimit.Limiter, ctx context.Context) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := l.Allow(ctx, guard.Call{Attempt: 1})
		done <- err
	}()
	return done
}

// result waits for the result of allowAsync.
func result(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(spectest.Guard):
		t.Fatal("Allow did not return")
		return nil
	}
}

// With WithWait a call that finds no token waits on the clock exactly
// until its token comes, and the calls after it queue behind it.
func TestWaitsForItsToken(t *testing.T) {
	l, clk := newLimiter(t, 10, 1, ratelimit.WithWait())
	ctx := context.Background()
	admitted(t, l, ctx)
	first := allowAsync(l, ctx)
	if d := waitFor(t, clk); d != 100*time.Millisecond {
		t.Fatalf("the first waiter waits %v, want 100ms", d)
	}
	second := allowAsync(l, ctx)
	if d := waitFor(t, clk); d != 200*time.Millisecond {
		t.Fatalf("the second waiter waits %v, want 200ms: behind the first", d)
	}
	if s := l.Stats(); s.Waiting != 2 || s.Tokens != -2 {
		t.Errorf("Stats while two wait = %+v, want 2 waiting, -2 tokens", s)
	}
	clk.Add(100 * time.Millisecond)
	if err := result(t, first); err != nil {
		t.Fatalf("the first waiter = %v, want admitted", err)
	}
	select {
	case err := <-second:
		t.Fatalf("the second waiter returned (%v) before its token", err)
	default:
	}
	clk.Add(100 * time.Millisecond)
	if err := result(t, second); err != nil {
		t.Fatalf("the second waiter = %v, want admitted", err)
	}
	if s := l.Stats(); s.Waited != 2 || s.Waiting != 0 || s.Refused != 0 {
		t.Errorf("Stats = %+v, want 2 waited, none waiting or refused", s)
	}
}

// With WithMaxWait a call whose token comes later than the longest wait
// is refused at once, starts no timer, and leaves its place to the next.
func TestMaxWaitRefusesAFarTurnAtOnce(t *testing.T) {
	l, clk := newLimiter(t, 10, 1, ratelimit.WithMaxWait(150*time.Millisecond))
	ctx := context.Background()
	admitted(t, l, ctx)
	first := allowAsync(l, ctx) // 100 ms away: waits
	if d := waitFor(t, clk); d != 100*time.Millisecond {
		t.Fatalf("the first waiter waits %v, want 100ms", d)
	}
	if admitted(t, l, ctx) { // 200 ms away: refused
		t.Fatal("a call 200ms from its token was admitted under a 150ms limit")
	}
	noWait(t, clk)
	clk.Add(50 * time.Millisecond)
	second := allowAsync(l, ctx) // 150 ms away now: the refused call gave its token back
	if d := waitFor(t, clk); d != 150*time.Millisecond {
		t.Fatalf("the next waiter waits %v, want 150ms (the refused call's reservation given back)", d)
	}
	clk.Add(150 * time.Millisecond)
	if err := result(t, first); err != nil {
		t.Fatal(err)
	}
	if err := result(t, second); err != nil {
		t.Fatal(err)
	}
	if s := l.Stats(); s.Refused != 1 || s.Waited != 2 {
		t.Errorf("Stats = %+v, want 1 refused, 2 waited", s)
	}
}

// A wait that would end after the context's deadline is not started:
// the call is refused at once with ErrRateLimited. (The deadline is on the
// time package's clock, so the test runs in a synctest bubble, where that
// clock is virtual.)
func TestWaitPastTheDeadlineIsRefusedAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := ratelimit.New(0.001, 1, ratelimit.WithWait()) // a token every 1000 s
		admitted(t, l, context.Background())
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		if _, err := l.Allow(ctx, guard.Call{Attempt: 1}); !errors.Is(err, ratelimit.ErrRateLimited) {
			t.Fatalf("Allow = %v, want ErrRateLimited", err)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("the refusal came after %v, want at once", waited)
		}
		// Within the deadline, the same call waits and is admitted.
		ctx2, cancel2 := context.WithTimeout(context.Background(), 2000*time.Second)
		defer cancel2()
		if _, err := l.Allow(ctx2, guard.Call{Attempt: 1}); err != nil || time.Since(start) != 1000*time.Second {
			t.Errorf("Allow = %v after %v, want admitted after 1000s", err, time.Since(start))
		}
	})
}

// A context done during the wait ends it with the context's cause, and
// the token is given back to the calls after it.
func TestCancelDuringTheWaitGivesTheTokenBack(t *testing.T) {
	l, clk := newLimiter(t, 10, 1, ratelimit.WithWait())
	admitted(t, l, context.Background())
	cause := errors.New("caller left")
	ctx, cancel := context.WithCancelCause(context.Background())
	done := allowAsync(l, ctx)
	waitFor(t, clk)
	cancel(cause)
	if err := result(t, done); !errors.Is(err, cause) {
		t.Fatalf("a cancelled waiter = %v, want the context's cause", err)
	}
	if s := l.Stats(); s.Waiting != 0 || s.Waited != 0 {
		t.Errorf("Stats = %+v, want nothing waiting or waited", s)
	}
	next := allowAsync(l, context.Background())
	if d := waitFor(t, clk); d != 100*time.Millisecond {
		t.Fatalf("the next waiter waits %v, want 100ms: the cancelled call's token given back", d)
	}
	clk.Add(100 * time.Millisecond)
	if err := result(t, next); err != nil {
		t.Fatal(err)
	}
}
