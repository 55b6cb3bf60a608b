package limiter

import (
	"math"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Each rule's branches, at values worked out by hand.
func TestVegas(t *testing.T) {
	cases := []struct {
		name                 string
		limit, r, peak, want float64
		alpha, beta          float64
	}{
		// At 10, log10 10 = 1: the thresholds are alpha and beta, capped
		// at a quarter and a half of the limit: 2.5 and 5.
		{"nothing queued: grows by √limit", 10, 1, 10, 10 + math.Sqrt(10), 3, 6},
		{"1.25 queued of 2.5: half of √limit", 10, 0.875, 10, 10 + math.Sqrt(10)/2, 3, 6},
		{"just under the lower threshold: by 1 at least", 10, 0.76, 10, 11, 3, 6},
		{"unused: stays", 10, 1, 4, 10, 3, 6},
		{"between the thresholds: stays", 10, 0.6, 10, 10, 3, 6},
		{"8 queued above 5: to 10 × 5/8", 10, 0.2, 10, 6.25, 3, 6},
		// At 100 the thresholds double: 6 and 12.
		{"far above the upper threshold: halves at most", 100, 0.01, 100, 50, 3, 6},
		{"100, 10 queued: inside 6..12", 100, 0.9, 100, 100, 3, 6},
		{"100, 20 queued: to 100 × 12/20", 100, 0.8, 100, 60, 3, 6},
		// A small limit: the thresholds are a quarter and a half of it.
		{"4, 2.4 queued above 2: to 4 × 2/2.4", 4, 0.4, 4, 4 * 2 / 2.4, 3, 6},
		{"2, nothing queued", 2, 1, 2, 2 + math.Sqrt(2), 3, 6},
	}
	for _, c := range cases {
		if got := vegas(c.limit, c.r, c.peak, c.alpha, c.beta); !near(got, c.want) {
			t.Errorf("%s: vegas(%v, %v, %v) = %v, want %v", c.name, c.limit, c.r, c.peak, got, c.want)
		}
	}
}

func TestGradient(t *testing.T) {
	cases := []struct {
		name                            string
		limit, r, peak, tolerance, want float64
	}{
		{"nothing queued: + √limit", 16, 1, 16, 1, 20},
		{"unused: stays", 16, 1, 10, 1, 16},
		{"used but for the headroom: grows", 16, 1, 12, 1, 20},
		// r = 0.8: next = 16 × 0.8 + 4 = 16.8, above 16: taken at once.
		{"a little queued: still grows", 16, 0.8, 16, 1, 16.8},
		// r = 0.6: next = 9.6 + 4 = 13.6; smoothed: 16 × 0.8 + 13.6 × 0.2.
		{"queued: shrinks, smoothed", 16, 0.6, 16, 1, 15.52},
		// r = 0.1: g is held at 1/2: next = 8 + 4 = 12, taken at once: the
		// latency more than doubled.
		{"far queued: the gradient is held at 1/2, unsmoothed", 16, 0.1, 16, 1, 12},
		{"the latency doubled: unsmoothed", 16, 0.5, 16, 1, 12},
		// Tolerance 1.5: 1.5 × 0.6 = 0.9: next = 14.4 + 4 = 18.4.
		{"tolerated", 16, 0.6, 16, 1.5, 18.4},
	}
	for _, c := range cases {
		if got := gradient(c.limit, c.r, c.peak, c.tolerance); !near(got, c.want) {
			t.Errorf("%s: gradient(%v, %v, %v, %v) = %v, want %v", c.name, c.limit, c.r, c.peak, c.tolerance, got, c.want)
		}
	}
}

// Where the gradient rule settles the latency is 1/(1 − 1/√limit) times
// the no-load latency: the rule neither grows nor shrinks there.
func TestGradientSettles(t *testing.T) {
	for _, limit := range []float64{10, 25, 100, 400} {
		r := 1 - 1/math.Sqrt(limit)
		if got := gradient(limit, r, limit, 1); !near(got, limit) {
			t.Errorf("limit %v at r = %v moved to %v", limit, r, got)
		}
	}
}

// The estimate keeps the limit within the floor and the ceiling, applies
// the decrease after a failure whatever the latency, and remembers the
// no-load latency for one to two baseline periods.
func TestEstimate(t *testing.T) {
	cfg := defaults()
	cfg.floor, cfg.ceiling, cfg.initial = 4, 30, 20
	cfg.baseline = time.Second
	var e estimate
	e.init(&cfg)
	ms := float64(time.Millisecond)
	if got := e.update(0, window{latency: 10 * ms, peak: 20}); got != 24 { // 20 + √20
		t.Fatalf("nothing queued: %d, want 24", got)
	}
	if e.noLoad() != 10*ms {
		t.Fatalf("no-load latency %v, want 10ms", time.Duration(e.noLoad()))
	}
	for range 10 {
		e.update(0, window{latency: 10 * ms, peak: 30})
	}
	if e.limit != 30 {
		t.Fatalf("the ceiling: %v", e.limit)
	}
	if got := e.update(0, window{latency: 10 * ms, failed: true, peak: 30}); got != 27 {
		t.Fatalf("a failure: %d, want 30 × 0.9", got)
	}
	for range 50 {
		e.update(0, window{failed: true})
	}
	if e.limit != 4 {
		t.Fatalf("the floor: %v", e.limit)
	}
	// A latency twice the no-load latency for good: the average the
	// baseline is taken from rises towards it, but the lowest of it stays
	// until the baseline periods have passed.
	for i := range 100 {
		e.update(int64(i)*int64(10*time.Millisecond), window{latency: 20 * ms, peak: 4})
	}
	if e.noLoad() != 10*ms {
		t.Fatalf("within the first second the no-load latency is %v, want 10ms", time.Duration(e.noLoad()))
	}
	for i := range 200 {
		e.update(int64(time.Second)+int64(i)*int64(10*time.Millisecond), window{latency: 20 * ms, peak: 4})
	}
	if got := time.Duration(e.noLoad()); got < 19*time.Millisecond {
		t.Fatalf("after two baseline periods of 20ms the no-load latency is %v", got)
	}
}

// share gives each priority its part of the limit, one call at least.
func TestShare(t *testing.T) {
	cases := []struct {
		t     float64
		limit int
		want  int
	}{
		{0.5, 10, 5}, {0.8, 10, 8}, {1, 10, 10}, {0.57, 100, 57}, {0.5, 1, 1}, {0.1, 3, 1}, {0.5, 3, 1},
	}
	for _, c := range cases {
		if got := share(c.t, c.limit); got != c.want {
			t.Errorf("share(%v, %d) = %d, want %d", c.t, c.limit, got, c.want)
		}
	}
}
