package hedge

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
)

// callCost returns the allocations and the bytes allocated by one call
// through h whose first attempt succeeds, averaged over many calls.
func callCost(t *testing.T, h *Hedger) (allocs, bytes float64) {
	t.Helper()
	const runs = 200
	op := Idempotent(func(context.Context) (int, error) { return 1, nil })
	call := func() {
		if _, err := Do(context.Background(), h, nil, op); err != nil {
			t.Fatal(err)
		}
	}
	allocs = testing.AllocsPerRun(runs, call)
	// The fewest bytes of a few rounds, so that an allocation of the
	// runtime's own during one round does not count.
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			call()
		}
		runtime.ReadMemStats(&after)
		b := float64(after.TotalAlloc-before.TotalAlloc) / runs
		if bytes == 0 || b < bytes {
			bytes = b
		}
	}
	return allocs, bytes
}

// A call allocates for the attempts it makes, not for the most it may
// make: a call whose first attempt succeeds costs the same under
// WithMaxAttempts(MaxAttempts) as under WithMaxAttempts(2).
func TestAllocsDoNotGrowWithMaxAttempts(t *testing.T) {
	clk := clock.NewMock()
	allocs2, bytes2 := callCost(t, New(WithDelay(delay), WithMaxAttempts(2), WithClock(clk)))
	allocsMax, bytesMax := callCost(t, New(WithDelay(delay), WithMaxAttempts(MaxAttempts), WithClock(clk)))
	t.Logf("per call: %v allocations, %v bytes at 2 attempts; %v allocations, %v bytes at %d", allocs2, bytes2, allocsMax, bytesMax, MaxAttempts)
	if allocsMax > allocs2 || bytesMax > bytes2+64 {
		t.Errorf("at %d attempts a call allocates %v times, %v bytes; at 2 attempts %v times, %v bytes",
			MaxAttempts, allocsMax, bytesMax, allocs2, bytes2)
	}
}

// WithMaxAttempts is bounded as a bulkhead's capacity is: a setting above
// MaxAttempts is reported before any call, and no call runs.
func TestMaxAttemptsBound(t *testing.T) {
	if err := New(WithDelay(delay), WithMaxAttempts(MaxAttempts)).Validate(); err != nil {
		t.Errorf("WithMaxAttempts(MaxAttempts): %v, want valid", err)
	}
	for _, n := range []int{MaxAttempts + 1, 1e9} {
		h := New(WithDelay(delay), WithMaxAttempts(n))
		err := h.Validate()
		if !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), "WithMaxAttempts") {
			t.Errorf("WithMaxAttempts(%d): Validate() = %v, want ErrInvalidConfiguration naming WithMaxAttempts", n, err)
		}
		ran := false
		_, err = Do(context.Background(), h, nil, Idempotent(func(context.Context) (int, error) {
			ran = true
			return 1, nil
		}))
		if !errors.Is(err, backoff.ErrInvalidConfiguration) || ran {
			t.Errorf("WithMaxAttempts(%d): Do = %v, ran %v; want ErrInvalidConfiguration and no attempt", n, err, ran)
		}
	}
}
