package herd

import (
	"testing"
	"time"
)

// The fleet's limit settles at the first window from which every window
// to the end of the stage stays within 10% of its mean over the stage's
// second half, provided that lasts a quarter of the stage.
func TestSettle(t *testing.T) {
	t.Parallel()
	const w = 10 * time.Millisecond
	step := func(at, from, to, n int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = from
			if i >= at {
				s[i] = to
			}
		}
		return s
	}
	cases := []struct {
		name    string
		limit   []int
		from    int
		want    time.Duration
		settled bool
	}{
		{"flat", step(0, 100, 100, 100), 0, 0, true},
		{"a step at window 30", step(30, 200, 100, 100), 0, 300 * time.Millisecond, true},
		{"within the band already", step(30, 105, 100, 100), 0, 0, true},
		{"from a later window", step(130, 200, 100, 200), 100, 300 * time.Millisecond, true},
		{"the last fifth only", step(80, 200, 100, 100), 0, time.Second, false},
	}
	for _, c := range cases {
		got, ok := settle(c.limit, c.from, len(c.limit), w)
		if got != c.want || ok != c.settled {
			t.Errorf("%s: settle = %v, %v; want %v, %v", c.name, got, ok, c.want, c.settled)
		}
	}
	// Oscillating outside the band: never settled.
	osc := make([]int, 100)
	for i := range osc {
		osc[i] = 80 + 40*(i%2)
	}
	if _, ok := settle(osc, 0, 100, w); ok {
		t.Error("a limit swinging ±20% settled")
	}
}

// The percentile is the smallest latency that at least that share of the
// latencies do not exceed.
func TestPercentile(t *testing.T) {
	t.Parallel()
	lat := []int32{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for q, want := range map[float64]time.Duration{0.5: 5 * time.Microsecond, 0.99: 10 * time.Microsecond, 0.1: time.Microsecond, 0.11: 2 * time.Microsecond} {
		if got := percentile(append([]int32(nil), lat...), q); got != want {
			t.Errorf("percentile(%v) = %v, want %v", q, got, want)
		}
	}
	if got := percentile(nil, 0.99); got != 0 {
		t.Errorf("no latencies: %v", got)
	}
}
