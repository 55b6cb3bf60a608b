package budget

import (
	"testing"
	"time"

	"github.com/benbjohnson/clock"
)

// newRatio returns a ratio budget on a mock clock.
func newRatio(t *testing.T, opts ...Option) (*Budget, *clock.Mock) {
	t.Helper()
	clk := clock.NewMock()
	b := NewRatio(append([]Option{WithClock(clk)}, opts...)...)
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	return b, clk
}

// requestsThenRetries makes n first attempts, then retries until one is
// refused, and returns how many were admitted.
func requestsThenRetries(t *testing.T, b *Budget, n int) int {
	t.Helper()
	for range n {
		if !admits(t, b, first) {
			t.Fatal("first attempt refused")
		}
	}
	got := 0
	for admits(t, b, retry) {
		got++
		if got > 1_000_000 {
			t.Fatal("retries never refused")
		}
	}
	return got
}

// TestRatioAllowance checks the exact number of retries a window allows.
func TestRatioAllowance(t *testing.T) {
	cases := []struct {
		name     string
		opts     []Option
		requests int
		want     int
	}{
		{"ratio_only_10", []Option{WithMinRetriesPerSecond(0)}, 10, 2},
		{"ratio_only_14", []Option{WithMinRetriesPerSecond(0)}, 14, 2},
		{"ratio_only_15", []Option{WithMinRetriesPerSecond(0)}, 15, 3},
		{"ratio_only_none", []Option{WithMinRetriesPerSecond(0)}, 0, 0},
		{"ratio_0.3_exact", []Option{WithMinRetriesPerSecond(0), WithRetryRatio(0.3)}, 10, 3},
		{"ratio_2", []Option{WithMinRetriesPerSecond(0), WithRetryRatio(2)}, 3, 6},
		{"defaults_no_traffic", nil, 0, 100}, // 10 per second over 10 s
		{"defaults_100", nil, 100, 120},
		{"reserve_only", []Option{WithMinRetriesPerSecond(1), WithRetryRatio(0)}, 50, 10},
		{"reserve_rounds_down", []Option{WithMinRetriesPerSecond(0.25), WithRetryRatio(0)}, 0, 2},
		{"reserve_0.29_over_100s", []Option{WithWindow(100 * time.Second), WithMinRetriesPerSecond(0.29), WithRetryRatio(0)}, 0, 29},
		{"reserve_plus_ratio", []Option{WithMinRetriesPerSecond(0.5), WithRetryRatio(0.5)}, 4, 7},
		{"nothing", []Option{WithMinRetriesPerSecond(0), WithRetryRatio(0)}, 1000, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := newRatio(t, tc.opts...)
			if got := requestsThenRetries(t, b, tc.requests); got != tc.want {
				t.Fatalf("%d requests allowed %d retries, want %d", tc.requests, got, tc.want)
			}
			s := b.Stats()
			if s.Requests != uint64(tc.requests) || s.Retries != uint64(tc.want) || s.Allowed != uint64(tc.want) || s.Refused != 1 {
				t.Fatalf("Stats = %+v, want %d requests, %d retries allowed, 1 refused", s, tc.requests, tc.want)
			}
		})
	}
}

// TestRatioRequestsAfterRefusal checks that new requests reopen a spent
// budget at once.
func TestRatioRequestsAfterRefusal(t *testing.T) {
	b, _ := newRatio(t, WithMinRetriesPerSecond(0))
	if got := requestsThenRetries(t, b, 10); got != 2 {
		t.Fatalf("got %d retries, want 2", got)
	}
	if got := requestsThenRetries(t, b, 4); got != 0 {
		t.Fatalf("14 requests: got %d more retries, want 0", got)
	}
	if got := requestsThenRetries(t, b, 1); got != 1 {
		t.Fatalf("15 requests: got %d more retries, want 1", got)
	}
}

// TestRatioWindowExpiry checks that counts leave the window exactly one
// window after their slot began, on the mock clock.
func TestRatioWindowExpiry(t *testing.T) {
	b, clk := newRatio(t, WithMinRetriesPerSecond(0)) // 10 s window, 1 s slots
	for range 10 {
		admits(t, b, first)
	}
	clk.Add(3 * time.Second)
	for range 5 {
		admits(t, b, first)
	}
	if got := requestsThenRetries(t, b, 0); got != 3 {
		t.Fatalf("15 requests allowed %d retries, want 3", got)
	}
	steps := []struct {
		at                time.Duration // since the start
		requests, retries uint64
	}{
		{10*time.Second - 1, 15, 3},
		{10 * time.Second, 5, 3}, // the first 10 requests are gone
		{13*time.Second - 1, 5, 3},
		{13 * time.Second, 0, 0},
	}
	start := time.Unix(0, 0)
	for _, s := range steps {
		clk.Set(start.Add(s.at))
		if got := b.Stats(); got.Requests != s.requests || got.Retries != s.retries {
			t.Fatalf("at %v: Stats = %+v, want %d requests, %d retries", s.at, got, s.requests, s.retries)
		}
	}
	// The window is empty: 5 new requests allow 1 retry.
	if got := requestsThenRetries(t, b, 5); got != 1 {
		t.Fatalf("after expiry: got %d retries, want 1", got)
	}
}

// TestRatioReserveRefills checks that the reserve comes back as the
// retries that spent it leave the window.
func TestRatioReserveRefills(t *testing.T) {
	b, clk := newRatio(t, WithWindow(time.Second), WithMinRetriesPerSecond(3), WithRetryRatio(0))
	if got := requestsThenRetries(t, b, 0); got != 3 {
		t.Fatalf("got %d retries, want 3", got)
	}
	clk.Add(time.Second - 1)
	if admits(t, b, retry) {
		t.Fatal("retry admitted before the window passed")
	}
	clk.Add(1)
	if got := requestsThenRetries(t, b, 0); got != 3 {
		t.Fatalf("after a window: got %d retries, want 3", got)
	}
}

// TestRatioIgnoresOutcomes checks that a ratio budget counts requests,
// not how they end.
func TestRatioIgnoresOutcomes(t *testing.T) {
	b, _ := newRatio(t, WithMinRetriesPerSecond(0))
	for range 10 {
		admits(t, b, first)
	}
	fail(b, 100)
	succeed(b, 100)
	if got := requestsThenRetries(t, b, 0); got != 2 {
		t.Fatalf("got %d retries, want 2", got)
	}
}

// TestRatioConcurrent checks exact counts under concurrent first attempts
// and retries: the retries admitted never exceed the allowance.
func TestRatioConcurrent(t *testing.T) {
	const goroutines, each = 16, 50
	b, _ := newRatio(t, WithMinRetriesPerSecond(0))
	concurrently(goroutines, each, func() { _, _ = b.Allow(t.Context(), first) })
	if got := b.Stats().Requests; got != goroutines*each {
		t.Fatalf("requests = %d, want %d", got, goroutines*each)
	}
	concurrently(goroutines, each, func() { _, _ = b.Allow(t.Context(), retry) })
	want := uint64(goroutines * each / 5)
	if s := b.Stats(); s.Retries != want || s.Allowed != want || s.Refused != goroutines*each-want {
		t.Fatalf("Stats = %+v, want %d retries allowed, %d refused", s, want, goroutines*each-want)
	}
}

// TestRatioConcurrentMixed checks that retries racing first attempts never
// exceed what the first attempts allow.
func TestRatioConcurrentMixed(t *testing.T) {
	const goroutines, each = 16, 100
	b, _ := newRatio(t, WithMinRetriesPerSecond(0))
	concurrently(goroutines, each, func() {
		_, _ = b.Allow(t.Context(), first)
		_, _ = b.Allow(t.Context(), retry)
	})
	s := b.Stats()
	if s.Requests != goroutines*each || s.Retries > s.Requests/5 || s.Allowed+s.Refused != goroutines*each {
		t.Fatalf("Stats = %+v: over the allowance, or a call lost", s)
	}
}

// A window offset makes the counts leave the window offset mod a slot
// sooner: a request made at the start allows its retry until 9.5 s with
// an offset of 1.5 s (slots of 1 s), until 10 s without.
func TestRatioWindowOffset(t *testing.T) {
	for _, tc := range []struct {
		offset, last time.Duration
	}{
		{0, 10 * time.Second},
		{1500 * time.Millisecond, 9500 * time.Millisecond},
	} {
		b, clk := newRatio(t, WithMinRetriesPerSecond(0), WithRetryRatio(1), WithWindowOffset(tc.offset))
		start := clk.Now()
		if !admits(t, b, first) {
			t.Fatal("first attempt refused")
		}
		clk.Set(start.Add(tc.last - time.Nanosecond))
		if !admits(t, b, retry) {
			t.Errorf("offset %v: the retry refused %v in, while the request is in the window", tc.offset, tc.last-time.Nanosecond)
		}
		b2, clk2 := newRatio(t, WithMinRetriesPerSecond(0), WithRetryRatio(1), WithWindowOffset(tc.offset))
		start = clk2.Now()
		admits(t, b2, first)
		clk2.Set(start.Add(tc.last))
		if admits(t, b2, retry) {
			t.Errorf("offset %v: a retry admitted %v in, after the request left the window", tc.offset, tc.last)
		}
	}
}
