package bench

import (
	"context"
	"flag"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// stressFor is how long each stress test of a guard's rate or count runs;
// 0, the default, skips them. run.sh and .ci/run give it.
var stressFor = flag.Duration("stress", 0, "run each stress test of a guard's rate or count for this long (0: skip them)")

// stressProcs is the least GOMAXPROCS a stress test runs with: contention
// between Ps is what the tests look for.
const stressProcs = 4

// stress runs the test only when -stress is given, with GOMAXPROCS at
// least stressProcs, and returns how long it runs.
func stress(t *testing.T) time.Duration {
	t.Helper()
	if *stressFor <= 0 {
		t.Skip("give -stress 2s to run the stress tests of the guards' rates")
	}
	if runtime.GOMAXPROCS(0) < stressProcs {
		prev := runtime.GOMAXPROCS(stressProcs)
		t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	}
	return *stressFor
}

// hammer runs callers goroutines that call fn in a loop until d has
// passed (each checks the time between calls, so the loop is bounded by d
// plus one call), pausing pause after a call fn reports refused, and
// returns the calls admitted and refused and the time it took. fn gets
// the caller's number and a context that ends at d.
func hammer(callers int, d, pause time.Duration, fn func(ctx context.Context, caller int) (admitted bool)) (admitted, refused int64, took time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var adm, ref atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for i := range callers {
		wg.Go(func() {
			for ctx.Err() == nil {
				if fn(ctx, i) {
					adm.Add(1)
					continue
				}
				ref.Add(1)
				if pause > 0 {
					time.Sleep(pause)
				}
			}
		})
	}
	wg.Wait()
	return adm.Load(), ref.Load(), time.Since(start)
}

// report logs a stress test's figures: configured against measured.
func report(t *testing.T, what string, callers int, configured, measured float64, unit string) {
	t.Helper()
	t.Logf("%s: %d callers, GOMAXPROCS %d: configured %.4g %s, measured %.4g %s (%.3f×)",
		what, callers, runtime.GOMAXPROCS(0), configured, unit, measured, unit, measured/configured)
}
