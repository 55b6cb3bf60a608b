package herd

import (
	"slices"
	"testing"
	"time"
)

// The recovery is judged on the windows wholly inside the healthy phase:
// the fleet is back to normal at the first window from which every window
// to the end stays within a factor 1.1 of the base, either way, for a
// second at least.
func TestRecovery(t *testing.T) {
	t.Parallel()
	const w = 10 * time.Millisecond
	const base = 20.0
	healthy, end := 2*time.Second, 4*time.Second // windows 200 to 399
	flat := func(n int) []int {
		load := make([]int, 400)
		for i := range load {
			load[i] = n
		}
		return load
	}
	with := func(load []int, at int, v ...int) []int {
		load = slices.Clone(load)
		copy(load[at:], v)
		return load
	}
	cases := []struct {
		name      string
		load      []int
		healthy   time.Duration
		want      time.Duration
		recovered bool
	}{
		{"normal_from_the_start", flat(20), healthy, 0, true},
		{"band_edges_are_normal", with(flat(20), 200, 22, 19), healthy, 0, true}, // 22 ≤ 1.1×20, 19 ≥ 20/1.1
		{"above_the_band", with(flat(20), 250, 23), healthy, 510 * time.Millisecond, true},
		{"below_the_band", with(flat(20), 250, 18), healthy, 510 * time.Millisecond, true},
		{"before_the_phase_does_not_count", with(flat(20), 150, 60), healthy, 0, true},
		{"a_window_cut_by_the_phase_start_does_not_count", with(flat(20), 200, 60), healthy + 5*time.Millisecond, 5 * time.Millisecond, true},
		{"held_exactly_one_second", with(flat(20), 299, 0), healthy, time.Second, true},
		{"held_less_than_a_second", with(flat(20), 300, 0), healthy, end - healthy, false},
		{"never", flat(0), healthy, end - healthy, false},
		{"a_short_timeline_ends_in_empty_windows", flat(20)[:390], healthy, end - healthy, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := recovery(tc.load, w, tc.healthy, end, base)
			if got != tc.want || ok != tc.recovered {
				t.Fatalf("recovery = %v, %v; want %v, %v", got, ok, tc.want, tc.recovered)
			}
		})
	}
}
