package backoff

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// "WithTestingBypass(ctx): every wait under that context is skipped, so an
// application's own tests can exercise retry paths in microseconds without
// global state (safe with t.Parallel)."
func TestTestingBypassSkipsEveryWait(t *testing.T) {
	t.Run("no timer, no time", func(t *testing.T) {
		for _, e := range specCtxEntries {
			clk := newSpecClock()
			start := clk.Now()
			op := specAlways()
			ctx := WithTestingBypass(context.Background())
			var err error
			waits := specDrive(t, clk, nil, func() {
				_, err = e.run(ctx, op.run, WithClock(clk), WithMaxTries(6), WithBackOff(NewConstantBackOff(time.Minute)))
			})
			specCheckStop(t, err, ErrExhausted, attemptErr(6))
			if len(waits) != 0 || !clk.Now().Equal(start.Add(specSum(waits))) {
				t.Errorf("%s: waits %v started under the bypass", e.name, waits)
			}
		}
	})
	t.Run("no real time on the default clock", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			op := specFailThenSucceed(8)
			ctx := WithTestingBypass(context.Background())
			if _, err := RetryCtx(ctx, op.run, WithMaxElapsedTime(0)); err != nil {
				t.Fatal(err)
			}
			if got := time.Since(start); got != 0 {
				t.Errorf("8 retries with the default BackOff took %v, want none", got)
			}
		})
	})
	t.Run("a derived context keeps the bypass", func(t *testing.T) {
		clk := newSpecClock()
		ctx, cancel := context.WithCancel(WithTestingBypass(context.Background()))
		defer cancel()
		op := specFailThenSucceed(3)
		var err error
		waits := specDrive(t, clk, nil, func() { _, err = RetryCtx(context.WithValue(ctx, specKey{}, 1), op.run, WithClock(clk)) })
		if err != nil {
			t.Fatal(err)
		}
		if len(waits) != 0 {
			t.Errorf("waits %v started under a context derived from the bypass", waits)
		}
	})
	t.Run("parallel", func(t *testing.T) {
		// Bypassed runs and one that is not run in parallel: the bypass of
		// one context does not leak into the other.
		var mu sync.Mutex
		waited := map[string]int{}
		for i := range 8 {
			name := fmt.Sprintf("bypassed %d", i)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				clk := newSpecClock()
				op := specFailThenSucceed(5)
				var err error
				waits := specDrive(t, clk, nil, func() { _, err = RetryCtx(WithTestingBypass(context.Background()), op.run, WithClock(clk)) })
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				waited[name] = len(waits)
				mu.Unlock()
			})
		}
		t.Run("not bypassed", func(t *testing.T) {
			t.Parallel()
			clk := newSpecClock()
			op := specFailThenSucceed(2)
			var err error
			waits := specDrive(t, clk, nil, func() { _, err = RetryCtx(context.Background(), op.run, WithClock(clk)) })
			if err != nil || len(waits) != 2 {
				t.Errorf("got %v with waits %v, want success after 2 real waits", err, waits)
			}
		})
		t.Cleanup(func() {
			for name, n := range waited {
				if n != 0 {
					t.Errorf("%s: %d waits started", name, n)
				}
			}
		})
	})
}
