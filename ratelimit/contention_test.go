package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/herdsafe/backoff/ratelimit"
)

// A time read before another caller's but used after it (what a caller
// preempted between reading the clock and taking the token does) must
// not move the Limiter's clock back: the time between would be credited
// twice, and a token invented. The mock clock set back stands for the
// stale reading; in waiting mode the refusal it gets reserves a token and
// gives it back, which is where x/time takes the time as it comes.
func TestAStaleTimeInventsNoToken(t *testing.T) {
	for _, opts := range [][]ratelimit.Option{nil, {ratelimit.WithMaxWait(50 * time.Millisecond)}} {
		l, clk := newLimiter(t, 10, 1, opts...)
		ctx := context.Background()
		start := clk.Now()
		if !admitted(t, l, ctx) {
			t.Fatal("the first call was refused by a full bucket")
		}
		clk.Add(100 * time.Millisecond)
		if !admitted(t, l, ctx) {
			t.Fatal("the token of 100ms later was refused")
		}
		clk.Set(start) // a caller that read the clock at the start
		if admitted(t, l, ctx) {
			t.Fatal("a call at the start was admitted with the bucket empty")
		}
		clk.Set(start.Add(100 * time.Millisecond))
		if admitted(t, l, ctx) {
			t.Fatalf("with %d options: a second call at 100ms was admitted: the stale time credited 100ms twice", len(opts))
		}
		noWait(t, clk)
	}
}

// A refusal in waiting mode gives back all it reserved, whatever the
// calls around it: two hundred refusals in a row leave the bucket as it
// was, the next token due when it was.
func TestRefusalsInWaitingModeLeaveTheBucketAlone(t *testing.T) {
	l, clk := newLimiter(t, 10, 1, ratelimit.WithMaxWait(50*time.Millisecond))
	ctx := context.Background()
	admitted(t, l, ctx)
	for range 200 {
		if admitted(t, l, ctx) {
			t.Fatal("a call 100ms from its token was admitted under a 50ms limit")
		}
	}
	if s := l.Stats(); s.Tokens != 0 || s.Refused != 200 {
		t.Fatalf("Stats = %+v, want 0 tokens and 200 refused", s)
	}
	clk.Add(50 * time.Millisecond)
	done := allowAsync(l, ctx)
	if d := waitFor(t, clk); d != 50*time.Millisecond {
		t.Fatalf("the next call waits %v, want 50ms", d)
	}
	clk.Add(50 * time.Millisecond)
	if err := result(t, done); err != nil {
		t.Fatal(err)
	}
}
