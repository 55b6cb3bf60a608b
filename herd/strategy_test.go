package herd_test

import (
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/herd"
)

func TestStrategiesNamesAndOrder(t *testing.T) {
	t.Parallel()
	want := []string{"no-jitter", "full", "equal", "decorrelated", "default", "immediate"}
	got := strategies()
	if len(got) != len(want) {
		t.Fatalf("%d strategies, want %d", len(got), len(want))
	}
	for i, s := range got {
		if s.Name != want[i] || s.NewBackOff == nil {
			t.Errorf("strategy %d = %q (BackOff %v), want %q", i, s.Name, s.NewBackOff != nil, want[i])
		}
		if a, b := s.NewBackOff(), s.NewBackOff(); s.Name != "immediate" && a == b {
			t.Errorf("%s: NewBackOff returned the same BackOff twice", s.Name)
		}
	}
}

// exp returns the *backoff.ExponentialBackOff a factory builds, with a
// random source that always returns r.
func exp(t *testing.T, f func() backoff.BackOff, r float64) *backoff.ExponentialBackOff {
	t.Helper()
	b, ok := f().(*backoff.ExponentialBackOff)
	if !ok {
		t.Fatalf("the factory built %T, want *backoff.ExponentialBackOff", f())
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	b.Random = func() float64 { return r }
	b.Reset()
	return b
}

func TestStrategiesAreTheLibrarysPolicies(t *testing.T) {
	t.Parallel()
	const base, cap = 5 * time.Millisecond, 100 * time.Millisecond
	nominal := []time.Duration{5, 10, 20, 40, 80, 100, 100}
	for i := range nominal {
		nominal[i] *= time.Millisecond
	}

	t.Run("no_jitter", func(t *testing.T) {
		for _, r := range []float64{0, 0.5, 1} {
			b := exp(t, herd.NoJitter(base, cap), r)
			for i, want := range nominal {
				if got := b.NextBackOff(); got != want {
					t.Fatalf("random %v, wait %d = %v, want %v whatever the draw", r, i, got, want)
				}
			}
		}
	})
	for _, tc := range []struct {
		name   string
		f      func(base, cap time.Duration) func() backoff.BackOff
		jitter backoff.Jitter
		lo, hi func(d time.Duration) time.Duration
	}{
		{"full", herd.FullJitter, backoff.FullJitter, func(time.Duration) time.Duration { return 0 }, func(d time.Duration) time.Duration { return d }},
		{"equal", herd.EqualJitter, backoff.EqualJitter, func(d time.Duration) time.Duration { return d / 2 }, func(d time.Duration) time.Duration { return d }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi := exp(t, tc.f(base, cap), 0), exp(t, tc.f(base, cap), 1)
			if lo.Jitter != tc.jitter || lo.Multiplier != 2 || lo.InitialInterval != base || lo.MaxInterval != cap {
				t.Fatalf("BackOff %+v, want %v, ×2, %v..%v", lo, tc.jitter, base, cap)
			}
			for i, d := range nominal {
				if got, want := lo.NextBackOff(), tc.lo(d); got != want {
					t.Fatalf("lowest wait %d = %v, want %v", i, got, want)
				}
				if got, want := hi.NextBackOff(), tc.hi(d); got != want {
					t.Fatalf("highest wait %d = %v, want %v", i, got, want)
				}
			}
		})
	}
	t.Run("decorrelated", func(t *testing.T) {
		b := exp(t, herd.DecorrelatedJitter(base, cap), 1)
		if b.Jitter != backoff.DecorrelatedJitter {
			t.Fatalf("jitter %v", b.Jitter)
		}
		prev := base
		for i := range 10 {
			got := b.NextBackOff()
			if want := min(3*prev, cap); got != want {
				t.Fatalf("wait %d = %v, want %v (3 × the previous, capped)", i, got, want)
			}
			prev = got
		}
	})
	t.Run("default", func(t *testing.T) {
		b := exp(t, herd.LibraryDefault(base, cap), 0.5)
		if b.Multiplier != backoff.DefaultMultiplier || b.RandomizationFactor != backoff.DefaultRandomizationFactor ||
			b.Jitter != backoff.RandomizationJitter || b.InitialInterval != base || b.MaxInterval != cap {
			t.Fatalf("BackOff %+v is not the library default with %v..%v", b, base, cap)
		}
	})
	t.Run("immediate", func(t *testing.T) {
		b := herd.Immediate()()
		if _, ok := b.(*backoff.ZeroBackOff); !ok {
			t.Fatalf("Immediate built %T, want *backoff.ZeroBackOff", b)
		}
		if d := b.NextBackOff(); d != 0 {
			t.Fatalf("wait %v, want 0", d)
		}
	})
}

// The strategies follow ExponentialBackOff's rule for zero fields: a base
// of 0 waits nothing, every time, and a cap of 0 is the default cap.
func TestStrategiesZeroBaseAndCap(t *testing.T) {
	t.Parallel()
	for _, s := range herd.Strategies(0, time.Second) {
		if s.Name == "immediate" {
			continue
		}
		b := exp(t, s.NewBackOff, 1)
		for i := range 20 {
			if got := b.NextBackOff(); got != 0 {
				t.Fatalf("%s, base 0: wait %d = %v, want 0", s.Name, i, got)
			}
		}
	}
	for _, s := range herd.Strategies(time.Second, 0) {
		if s.Name == "immediate" {
			continue
		}
		b := exp(t, s.NewBackOff, 0.5)
		var last time.Duration
		for range 100 {
			last = b.NextBackOff()
		}
		if limit := backoff.DefaultMaxInterval * 3 / 2; last < backoff.DefaultMaxInterval/4 || last > limit {
			t.Errorf("%s, cap 0: wait %v after 100, want it near backoff.DefaultMaxInterval (%v)", s.Name, last, backoff.DefaultMaxInterval)
		}
	}
}
