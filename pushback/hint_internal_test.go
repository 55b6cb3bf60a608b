package pushback

import (
	"math"
	"testing"
	"time"
)

// The loads no real guard reports: a limit of 0 or less and a NaN
// probability tell nothing (the base); a probability of 1 or more, or an
// infinite load, saturates; a load below 1 leaves the base.
func TestHostileLoads(t *testing.T) {
	base := time.Second
	for _, c := range []struct {
		name string
		load float64
		want time.Duration
	}{
		{"zero_capacity", demand(5, 3, 0), base},
		{"zero_capacity_empty", demand(0, 0, 0), base},
		{"negative_capacity", demand(5, 0, -1), base},
		{"half_full", demand(1, 0, 2), base},
		{"over_the_limit", demand(6, 0, 4), 1500 * time.Millisecond},
		{"nan_probability", rejection(math.NaN()), base},
		{"probability_one", rejection(1), math.MaxInt64},
		{"probability_above_one", rejection(7), math.MaxInt64},
		{"probability_inf", rejection(math.Inf(1)), math.MaxInt64},
		{"probability_minus_inf", rejection(math.Inf(-1)), base},
		{"negative_probability", rejection(-0.5), base},
		{"probability_half", rejection(0.5), 2 * time.Second},
		{"probability_just_below_one", rejection(math.Nextafter(1, 0)), math.MaxInt64},
		{"nan_load", math.NaN(), base},
		{"inf_load", math.Inf(1), math.MaxInt64},
		{"minus_inf_load", math.Inf(-1), base},
		{"huge_load", 1e300, math.MaxInt64},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := scale(base, c.load); got != c.want {
				t.Errorf("scale(1s, %v) = %v, want %v", c.load, got, c.want)
			}
		})
	}
	if got := scale(math.MaxInt64, 2); got != math.MaxInt64 {
		t.Errorf("scale(the largest Duration, 2) = %v, want it saturated", got)
	}
}

// An infinite load asks for Max, spread or not.
func TestInfiniteLoadAsksForMax(t *testing.T) {
	r := Rule{Base: time.Second, Max: 30 * time.Second, Unit: time.Millisecond}
	for _, u := range []float64{0, 0.5, math.Nextafter(1, 0)} {
		if got := r.spread(scale(r.Base, rejection(1)), u); got != r.Max {
			t.Errorf("u = %v: %v, want the maximum", u, got)
		}
	}
}
