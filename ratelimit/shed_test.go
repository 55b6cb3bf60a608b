package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/httpshed"
	"github.com/herdsafe/backoff/pushback"
)

// The server's side: the wait a shedding middleware tells is the time
// until the next token, the base at least.
func TestShedWaitOfARefusal(t *testing.T) {
	l, clk := newLimiter(t, 0.1, 1)
	admitted(t, l, context.Background())
	_, err := l.Allow(context.Background(), guard.Call{Attempt: 1})
	clk.Add(3500 * time.Millisecond)
	r := pushback.Rule{Base: time.Second, Max: time.Minute, Unit: time.Millisecond, Random: func() float64 { return 0 }}
	if got := r.Wait(l, guard.Refusal(err)); got != 6500*time.Millisecond {
		t.Errorf("pushback Wait = %v, want the 6.5 s until the next token", got)
	}
	sh := httpshed.New(l, httpshed.WithRandom(func() float64 { return 0 }))
	if got := sh.RetryAfter(err); got != 7*time.Second {
		t.Errorf("httpshed RetryAfter = %v, want 6.5 s rounded up to 7 s", got)
	}
	r.Base = 10 * time.Second
	if got := r.Wait(l, err); got != r.Base {
		t.Errorf("a base of 10 s: Wait = %v, want the base", got)
	}
}
