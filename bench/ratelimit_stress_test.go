package bench

import (
	"context"
	"testing"
	"time"

	"github.com/herdsafe/backoff/ratelimit"
	"golang.org/x/time/rate"
)

// TestStressRateLimit calls one ratelimit.Limiter from many goroutines on
// several Ps, in each of its modes, and checks that the calls admitted a
// second stay within a few percent of the rate (plus the burst): no token
// lost to contention, none invented. Its figures are logged (go test -v):
// the rate configured against the rate measured.
func TestStressRateLimit(t *testing.T) {
	d := stress(t)
	cases := []struct {
		name    string
		rate    rate.Limit
		burst   int
		opts    []ratelimit.Option
		callers []int
	}{
		{"refuse at once", 100, 10, nil, []int{20, 400, 1500}},
		{"WithMaxWait(50ms)", 100, 10, []ratelimit.Option{ratelimit.WithMaxWait(50 * time.Millisecond)}, []int{20, 100, 400, 1500}},
		{"WithWait", 100, 10, []ratelimit.Option{ratelimit.WithWait()}, []int{20, 400}},
		{"20000/s WithMaxWait(3ms)", 20000, 50, []ratelimit.Option{ratelimit.WithMaxWait(3 * time.Millisecond)}, []int{1500}},
	}
	for _, c := range cases {
		for _, n := range c.callers {
			l := ratelimit.New(c.rate, c.burst, c.opts...)
			adm, ref, took := hammer(n, d, time.Millisecond, func(ctx context.Context, _ int) bool {
				return l.Run(ctx, func(context.Context) error { return nil }) == nil
			})
			got := float64(adm) / took.Seconds()
			report(t, "ratelimit "+c.name, n, float64(c.rate), got, "calls/s")
			t.Logf("ratelimit %s: %d refused", c.name, ref)
			most := (float64(c.rate)*took.Seconds() + float64(c.burst)) * 1.02
			least := float64(c.rate) * took.Seconds() * 0.9
			if c.rate > 1000 {
				// At this rate two shared cores, not the limiter, set how
				// many calls get through: the row is read against x/time's
				// own Wait below, and checked only for tokens invented.
				least = 0
			}
			if float64(adm) > most || float64(adm) < least {
				t.Errorf("ratelimit %s, %d callers: admitted %d in %v, want between %.0f and %.0f", c.name, n, adm, took, least, most)
			}
		}
	}
	// x/time's own Wait, with each call's context bounded to the longest
	// wait, at the last row's settings: what the machine lets a limiter
	// admit, to read that row against.
	xl := rate.NewLimiter(20000, 50)
	adm, ref, took := hammer(1500, d, time.Millisecond, func(ctx context.Context, _ int) bool {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Millisecond)
		defer cancel()
		return xl.Wait(ctx) == nil
	})
	report(t, "x/time Wait (reference)", 1500, 20000, float64(adm)/took.Seconds(), "calls/s")
	t.Logf("x/time Wait (reference): %d refused", ref)
}
