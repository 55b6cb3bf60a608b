package chaos

import (
	"context"
	"testing"

	"github.com/herdsafe/backoff/guard"
)

// Two Injectors with the same seed inject on the same calls; another seed
// gives another pattern. The rate is near the probability (the seed is
// fixed, so this cannot flake).
func TestSeededReproducible(t *testing.T) {
	pattern := func(seed uint64) []bool {
		in := New(Config{ErrorProbability: 0.3, InjectedError: errInjected, LatencyProbability: 0.5, Rand: Seeded(seed)})
		out := make([]bool, 2000)
		for i := range out {
			_, err := in.Allow(context.Background(), guard.Call{Attempt: 1})
			out[i] = err != nil
		}
		return out
	}
	a, b, c := pattern(42), pattern(42), pattern(43)
	same, hits := true, 0
	for i := range a {
		same = same && a[i] == c[i]
		if a[i] != b[i] {
			t.Fatalf("call %d: seed 42 injected %v once and %v once", i, a[i], b[i])
		}
		if a[i] {
			hits++
		}
	}
	if same {
		t.Error("seeds 42 and 43 injected on the same calls")
	}
	if hits < 540 || hits > 660 {
		t.Errorf("%d of 2000 calls injected with probability 0.3, want about 600", hits)
	}
}

func TestSeededRange(t *testing.T) {
	r := Seeded(0)
	var sum float64
	const n = 100000
	for range n {
		x := r()
		if !(x >= 0 && x < 1) {
			t.Fatalf("draw %v outside [0, 1)", x)
		}
		sum += x
	}
	if mean := sum / n; mean < 0.49 || mean > 0.51 {
		t.Errorf("mean of %d draws %v, want about 0.5", n, mean)
	}
}
