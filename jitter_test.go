package backoff

import (
	"slices"
	"testing"
	"time"
)

func sequence(b BackOff, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = b.NextBackOff()
	}
	return out
}

// With a fixed random draw each jitter kind gives its formula's exact
// sequence (base 100ms, multiplier 2, cap 1s).
func TestJitterKindsExactSequences(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		jitter Jitter
		draw   float64
		want   []time.Duration
	}{
		{FullJitter, 1, []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1000 * ms, 1000 * ms}},
		{FullJitter, 0.5, []time.Duration{50 * ms, 100 * ms, 200 * ms, 400 * ms, 500 * ms, 500 * ms}},
		{FullJitter, 0, []time.Duration{0, 0, 0, 0, 0, 0}},
		{EqualJitter, 1, []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1000 * ms, 1000 * ms}},
		{EqualJitter, 0, []time.Duration{50 * ms, 100 * ms, 200 * ms, 400 * ms, 500 * ms, 500 * ms}},
		{DecorrelatedJitter, 1, []time.Duration{300 * ms, 900 * ms, 1000 * ms, 1000 * ms}},
		{DecorrelatedJitter, 0, []time.Duration{100 * ms, 100 * ms, 100 * ms}},
		{DecorrelatedJitter, 0.5, []time.Duration{200 * ms, 350 * ms, 575 * ms, 912500 * time.Microsecond, 1000 * ms}},
		{RandomizationJitter, 1, []time.Duration{150 * ms, 300 * ms, 600 * ms, 1200 * ms, 1500 * ms}},
		{RandomizationJitter, 0, []time.Duration{50 * ms, 100 * ms, 200 * ms, 400 * ms, 500 * ms}},
	}
	for _, c := range cases {
		b := NewExponentialBackOff(WithInitialInterval(100*ms), WithMaxInterval(time.Second),
			WithMultiplier(2), withJitter(c.jitter), withRandom(constRandom(c.draw)))
		if got := sequence(b, len(c.want)); !slices.Equal(got, c.want) {
			t.Errorf("%v with draw %v: %v, want %v", c.jitter, c.draw, got, c.want)
		}
		b.Reset()
		if got := sequence(b, len(c.want)); !slices.Equal(got, c.want) {
			t.Errorf("%v with draw %v after Reset: %v, want %v", c.jitter, c.draw, got, c.want)
		}
	}
}

// Out-of-range draws from a custom source are clamped, never turned into
// negative or oversized waits.
func TestWithRandomClampsItsSource(t *testing.T) {
	for _, r := range []float64{-5, 7, nan()} {
		b := NewExponentialBackOff(WithInitialInterval(time.Second), WithMaxInterval(time.Second),
			withJitter(FullJitter), withRandom(constRandom(r)))
		if got := b.NextBackOff(); got < 0 || got > time.Second {
			t.Errorf("draw %v: wait %v outside [0, 1s]", r, got)
		}
	}
}

func nan() float64 {
	zero := 0.0
	return zero / zero
}

// Clients that fail together spread out: with the default source, the
// waits of many BackOffs at the same attempt are not all equal, for every
// kind but a zero randomization factor.
func TestJitterSpreadsAHerd(t *testing.T) {
	for _, j := range []Jitter{RandomizationJitter, FullJitter, EqualJitter, DecorrelatedJitter} {
		const clients = 200
		lo, hi := time.Duration(1<<62), time.Duration(0)
		for range clients {
			b := NewExponentialBackOff(withJitter(j))
			b.NextBackOff()
			b.NextBackOff()
			d := b.NextBackOff() // the third wait
			lo, hi = min(lo, d), max(hi, d)
		}
		if hi-lo < 100*time.Millisecond {
			t.Errorf("%v: third waits of %d clients span only %v", j, clients, hi-lo)
		}
	}
	b := NewExponentialBackOff(WithRandomizationFactor(0))
	if a, c := b.NextBackOff(), NewExponentialBackOff(WithRandomizationFactor(0)).NextBackOff(); a != c {
		t.Errorf("no jitter: %v and %v, want equal", a, c)
	}
}

func TestJitterString(t *testing.T) {
	for j, want := range map[Jitter]string{
		RandomizationJitter: "RandomizationJitter", FullJitter: "FullJitter",
		EqualJitter: "EqualJitter", DecorrelatedJitter: "DecorrelatedJitter", Jitter(9): "Jitter(9)",
	} {
		if got := j.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(j), got, want)
		}
	}
}
