package herd

import (
	"slices"
	"testing"
	"time"
)

// The load recovery is judged over spans of a second wholly inside the
// healthy phase: the fleet is back to normal at the first span from which
// every span to the end, moved a window at a time, has a load within a
// factor 1.1 of the base, either way.
func TestLoadRecovery(t *testing.T) {
	t.Parallel()
	const w = 10 * time.Millisecond
	const base = 20.0                            // 2000 a span of a second
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
		// 200 calls more in one window make a span of 2200 calls, the
		// edge of the band: still normal.
		{"band_edge_is_normal", with(flat(20), 250, 220), healthy, 0, true},
		// 201 more make 2201: every span that holds window 250 is out,
		// the first normal one starts just after it.
		{"above_the_band", with(flat(20), 250, 221), healthy, 510 * time.Millisecond, true},
		{"below_the_band", with(flat(20), 250, slices.Repeat([]int{0}, 19)...), healthy, 600 * time.Millisecond, true}, // from the span with 9 of them
		{"a_spike_averaged_over_the_span", with(flat(20), 250, 60, 60), healthy, 0, true},
		{"before_the_phase_does_not_count", with(flat(20), 150, 2000), healthy, 0, true},
		{"a_window_cut_by_the_phase_start_does_not_count", with(flat(20), 200, 2000), healthy + 5*time.Millisecond, 5 * time.Millisecond, true},
		{"the_last_span_only", with(flat(20), 299, 1000), healthy, time.Second, true},
		{"not_even_the_last_span", with(flat(20), 300, 1000), healthy, end - healthy, false},
		{"never", flat(0), healthy, end - healthy, false},
		{"a_short_timeline_ends_in_empty_windows", flat(20)[:350], healthy, end - healthy, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := loadRecovery(tc.load, w, tc.healthy, end, base)
			if got != tc.want || ok != tc.recovered {
				t.Fatalf("loadRecovery = %v, %v; want %v, %v", got, ok, tc.want, tc.recovered)
			}
		})
	}
}

// The success recovery is the first span of a second from which the user
// calls started in every span succeeded at 99% or more.
func TestSuccessRecovery(t *testing.T) {
	t.Parallel()
	const w = 10 * time.Millisecond
	healthy, end := 2*time.Second, 4*time.Second
	started := make([]int32, 400)
	for i := range started {
		started[i] = 10 // 1000 user calls a second
	}
	all := slices.Clone(started)
	cases := []struct {
		name      string
		succeeded func() []int32
		want      time.Duration
		recovered bool
	}{
		{"all_succeed", func() []int32 { return all }, 0, true},
		// 10 failures in a span of 1000 is 99% exactly: good.
		{"one_percent_fails", func() []int32 { s := slices.Clone(all); s[250] = 0; return s }, 0, true},
		{"more_than_one_percent", func() []int32 { s := slices.Clone(all); s[250], s[251] = 0, 9; return s }, 510 * time.Millisecond, true},
		{"the_last_span_fails", func() []int32 { s := slices.Clone(all); s[390] = 0; s[391] = 0; return s }, end - healthy, false},
		{"none", func() []int32 { return make([]int32, 400) }, end - healthy, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := successRecovery(started, tc.succeeded(), w, healthy, end)
			if got != tc.want || ok != tc.recovered {
				t.Fatalf("successRecovery = %v, %v; want %v, %v", got, ok, tc.want, tc.recovered)
			}
		})
	}
	// No user call started in a span: nothing failed.
	if got, ok := successRecovery(make([]int32, 400), make([]int32, 400), w, healthy, end); got != 0 || !ok {
		t.Fatalf("successRecovery with no user call = %v, %v; want 0, true", got, ok)
	}
}
