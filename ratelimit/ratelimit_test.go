package ratelimit_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
	"github.com/herdsafe/backoff/ratelimit"
)

// The bucket starts full: burst calls are admitted at once, the next is
// refused, and one token comes back every 1/rate.
func TestBurstThenRate(t *testing.T) {
	l, clk := newLimiter(t, 10, 3) // a token every 100 ms
	ctx := context.Background()
	for i := range 3 {
		if !admitted(t, l, ctx) {
			t.Fatalf("call %d of the burst refused", i+1)
		}
	}
	if admitted(t, l, ctx) {
		t.Fatal("a fourth call at once was admitted")
	}
	clk.Add(99 * time.Millisecond)
	if admitted(t, l, ctx) {
		t.Fatal("admitted 99ms later, before a whole token came")
	}
	clk.Add(time.Millisecond)
	if !admitted(t, l, ctx) {
		t.Fatal("refused 100ms later, with a token back")
	}
	if admitted(t, l, ctx) {
		t.Fatal("two calls admitted on one token")
	}
	clk.Add(time.Hour) // the bucket holds burst tokens at most
	n := 0
	for admitted(t, l, ctx) {
		n++
	}
	if n != 3 {
		t.Errorf("after an hour idle, %d calls admitted at once, want the burst, 3", n)
	}
	noWait(t, clk)
	if s := l.Stats(); s.Refused != 4 || s.Waited != 0 || s.Waiting != 0 {
		t.Errorf("Stats = %+v, want 4 refused, none waited", s)
	}
}

// Without a wait option a refusal is immediate and starts no timer.
func TestRefusesAtOnceByDefault(t *testing.T) {
	l, clk := newLimiter(t, 1, 1)
	ctx := context.Background()
	admitted(t, l, ctx)
	_, err := l.Allow(ctx, guard.Call{Attempt: 1})
	if !errors.Is(err, ratelimit.ErrRateLimited) || err.Error() != ratelimit.ErrRateLimited.Error() {
		t.Fatalf("Allow = %v, want ErrRateLimited", err)
	}
	noWait(t, clk)
}

// A context already done is refused with its cause and takes no token.
func TestDoneContextTakesNoToken(t *testing.T) {
	l, _ := newLimiter(t, 1, 1)
	cause := errors.New("shutting down")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	if _, err := l.Allow(ctx, guard.Call{Attempt: 1}); !errors.Is(err, cause) {
		t.Fatalf("Allow with a done context = %v, want its cause", err)
	}
	if !admitted(t, l, context.Background()) {
		t.Error("the refused call took the only token")
	}
}

// Concurrent callers share the bucket: exactly burst of them get in.
func TestConcurrentCallersShareTheBucket(t *testing.T) {
	l, _ := newLimiter(t, 1, 50)
	var in atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				if _, err := l.Allow(context.Background(), guard.Call{Attempt: 1}); err == nil {
					in.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if in.Load() != 50 {
		t.Errorf("%d of 800 concurrent calls admitted on a burst of 50 and a frozen clock, want 50", in.Load())
	}
	if s := l.Stats(); s.Refused != 750 {
		t.Errorf("Refused = %d, want 750", s.Refused)
	}
}

// Run calls fn when admitted and returns its error unchanged; a refusal
// does not call fn and matches both ErrRefused and ErrRateLimited.
func TestRun(t *testing.T) {
	l, _ := newLimiter(t, 1, 1)
	ctx := context.Background()
	boom := errors.New("boom")
	calls := 0
	fn := func(context.Context) error { calls++; return boom }
	if err := l.Run(ctx, fn); err != boom {
		t.Fatalf("admitted Run = %v, want fn's error itself", err)
	}
	err := l.Run(ctx, fn)
	if !errors.Is(err, backoff.ErrRefused) || !errors.Is(err, ratelimit.ErrRateLimited) {
		t.Fatalf("refused Run = %v, want ErrRefused wrapping ErrRateLimited", err)
	}
	if calls != 1 {
		t.Errorf("fn ran %d times, want 1", calls)
	}
}

// TestRunIsGuardRun: Run is guard.Run, as every guard's is: a ctx done
// already is refused before the Limiter is asked (no token taken, nothing
// counted), with an error that matches backoff.ErrRefused and wraps the
// ctx's cause; a nil ctx, fn or Limiter is reported as guard.Run reports
// it.
func TestRunIsGuardRun(t *testing.T) {
	fresh := func() *ratelimit.Limiter { return ratelimit.New(1, 1, ratelimit.WithClock(clock.NewMock())) }
	guardtest.RunIsGuardRun(t, fresh, func(l *ratelimit.Limiter) any { return l.Stats() })

	l := fresh()
	done, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("caller gone"))
	_ = l.Run(done, func(context.Context) error { return nil })
	if !admitted(t, l, context.Background()) {
		t.Error("Run with a ctx done took the only token")
	}
	err := (*ratelimit.Limiter)(nil).Run(context.Background(), func(context.Context) error { return nil })
	if !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), "guard.Run was given a nil Guard") {
		t.Errorf("Run on a nil Limiter = %v, want guard.Run's ErrInvalidConfiguration", err)
	}
}

// A call's success path allocates nothing.
func TestAdmittedCallAllocatesNothing(t *testing.T) {
	l := ratelimit.New(1e9, 1<<30)
	ctx := context.Background()
	fn := func(context.Context) error { return nil }
	allocs := testing.AllocsPerRun(1000, func() {
		p, err := l.Allow(ctx, guard.Call{Attempt: 1})
		if err != nil {
			t.Fatal(err)
		}
		l.Record(p, guard.Outcome{})
		_ = l.Run(ctx, fn)
	})
	if allocs != 0 {
		t.Errorf("an admitted call allocates %v times, want 0", allocs)
	}
}

// Stats reports the rate, the burst and the tokens left.
func TestStats(t *testing.T) {
	l, clk := newLimiter(t, 4, 2)
	admitted(t, l, context.Background())
	admitted(t, l, context.Background())
	clk.Add(125 * time.Millisecond) // half a token
	s := l.Stats()
	if s.Rate != 4 || s.Burst != 2 || s.Tokens != 0.5 {
		t.Errorf("Stats = %+v, want rate 4, burst 2, 0.5 tokens", s)
	}
	if (&ratelimit.Limiter{}).Stats() != (ratelimit.Stats{}) {
		t.Error("a zero Limiter reports figures")
	}
}
