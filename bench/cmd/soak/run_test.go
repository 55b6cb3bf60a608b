package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// smokeConfig is a small run of mode: 200 callers for 100 ms, with every
// fault of the server and every guard in play, and times short enough
// that the run ends within a few hundred milliseconds.
func smokeConfig(mode string) config {
	cfg := defaults()
	cfg.mode = mode
	cfg.callers = 200
	cfg.duration = 100 * time.Millisecond
	cfg.think = 10 * time.Millisecond
	cfg.callTimeout = 150 * time.Millisecond
	cfg.cancel, cfg.cancelIn = 0.2, 100*time.Millisecond
	cfg.maxTries = 3
	cfg.boInitial, cfg.boMax = 5*time.Millisecond, 20*time.Millisecond
	cfg.attemptTimeout = 100 * time.Millisecond
	cfg.bulkhead, cfg.bulkheadQueue, cfg.bulkheadWait = 100, 100, 10*time.Millisecond
	cfg.breakerRate, cfg.breakerMin, cfg.breakerWindow, cfg.breakerOpen = 0.5, 10, 50, 50*time.Millisecond
	cfg.grace, cfg.settle = 5*time.Second, 5*time.Second // spent only if something is wrong
	cfg.sample, cfg.progress = 50*time.Millisecond, 0
	cfg.mix = mix{
		seed: 6, unavailable: 0.2, retryAfter: 0.1, retryAfterMax: 1, reset: 0.1, // seed 6: the third slot is an outage
		slow: 0.2, slowMax: 50 * time.Millisecond, slowChunks: 4,
		outage: 0.2, outageSlot: 50 * time.Millisecond, body: 256,
	}
	return cfg
}

// TestSmoke runs the soak for real, briefly, in both modes. It asserts
// what must hold however fast the machine is: every call accounted for,
// no promise of the library broken, the goroutines back to the baseline.
// It asserts no rate.
func TestSmoke(t *testing.T) {
	for _, mode := range []string{modeTransport, modePolicy} {
		t.Run(mode, func(t *testing.T) {
			cfg := smokeConfig(mode)
			res, err := run(context.Background(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			c := res.counts
			if !c.Balanced() {
				t.Errorf("started %d, completed %d, failed %d", c.Started, c.Completed, c.FailedTotal())
			}
			if c.Started < int64(cfg.callers) {
				t.Errorf("%d calls started; every one of the %d callers makes one at least", c.Started, cfg.callers)
			}
			if f := res.failures(); len(f) > 0 {
				var out bytes.Buffer
				report(&out, res)
				t.Errorf("the run failed: %q\n%s", f, out.String())
			}
			if res.goroutinesAfter > res.goroutinesBefore {
				t.Errorf("goroutines: %d before, %d after", res.goroutinesBefore, res.goroutinesAfter)
			}
			if len(res.samples) < 2 {
				t.Errorf("%d heap samples; the first and the last are always taken", len(res.samples))
			}
			var out bytes.Buffer
			report(&out, res)
			t.Logf("%s", out.String())
			for _, want := range []string{"every call accounted for", "goroutines: before", "heap in use", "\nPASS\n"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("the report lacks %q:\n%s", want, out.String())
				}
			}
			goleak.VerifyNone(t)
		})
	}
	// An interrupt ends the load through the context, at once; the calls
	// are still all accounted for.
	t.Run("cancelled", func(t *testing.T) {
		cfg := smokeConfig(modePolicy)
		cfg.callers = 20
		cfg.duration = time.Hour
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := run(ctx, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.load > time.Minute {
			t.Errorf("the load lasted %v with a cancelled context", res.load)
		}
		if c := res.counts; !c.Balanced() || c.Started < int64(cfg.callers) {
			t.Errorf("started %d, completed %d, failed %d", c.Started, c.Completed, c.FailedTotal())
		}
		if f := res.failures(); len(f) > 0 {
			t.Errorf("the run failed: %q", f)
		}
		goleak.VerifyNone(t)
	})
}

func TestRunRejectsBadConfig(t *testing.T) {
	cfg := smokeConfig(modeTransport)
	cfg.callers = 0
	if _, err := run(context.Background(), cfg, nil); err == nil || !strings.Contains(err.Error(), "-callers") {
		t.Errorf("run with 0 callers: %v", err)
	}
}
