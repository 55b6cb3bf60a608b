package backoff

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// cloningBackOff is a BackOff of the caller's own that can be shared,
// because it has a Clone method: every run works on a copy.
type cloningBackOff struct {
	clones *atomic.Int64
	next   time.Duration
	calls  int
}

func (b *cloningBackOff) NextBackOff() time.Duration {
	b.calls++
	return b.next * time.Duration(b.calls)
}
func (b *cloningBackOff) Reset() { b.calls = 0 }
func (b *cloningBackOff) Clone() BackOff {
	b.clones.Add(1)
	c := *b
	return &c
}

// The one rule of BackOff: a run works on a copy of a BackOff with a Clone
// method, so one value may be shared by concurrent runs (run with -race);
// the value itself is never called.
func TestBackOffWithCloneIsShared(t *testing.T) {
	synctest.Test(t, testBackOffWithCloneIsShared)
}

func testBackOffWithCloneIsShared(t *testing.T) {
	clones := new(atomic.Int64)
	shared := &cloningBackOff{clones: clones}
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			op := specFailThenSucceed(3)
			n := &specNotify{}
			if _, err := Do(ctx, func(context.Context) (int, error) { return op.Run() },
				WithBackOff(shared), WithNotify(n.Notify)); err != nil {
				t.Error(err)
			}
			// Each run's copy starts its sequence over: 0, 0, 0 of a
			// zero step; what matters is that it made three retries.
			if len(n.Delays) != 3 {
				t.Errorf("%d retries, want 3", len(n.Delays))
			}
		}()
	}
	wg.Wait()
	if shared.calls != 0 || clones.Load() != 8 {
		t.Errorf("the shared BackOff was called %d times and cloned %d times; want 0 and 8", shared.calls, clones.Load())
	}
	// A run that succeeds at once makes no copy.
	_, _ = Retry(succeed, WithBackOff(shared))
	if clones.Load() != 8 {
		t.Errorf("a successful run cloned the BackOff")
	}
}

// WithContext keeps the rule: wrapping one shared *ExponentialBackOff for
// each call is safe (run with -race), and each call's wait sequence is its
// own.
func TestWithContextOfASharedBackOff(t *testing.T) {
	synctest.Test(t, testWithContextOfASharedBackOff)
}

func testWithContextOfASharedBackOff(t *testing.T) {
	shared := specExp(time.Second, time.Minute)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			n := &specNotify{}
			op := specFailThenSucceed(3)
			if _, err := RetryCtx(ctx, op.Run, WithBackOff(WithContext(ctx, shared)), WithNotify(n.Notify)); err != nil {
				t.Error(err)
			}
			if len(n.Delays) != 3 || n.Delays[0] != time.Second || n.Delays[2] != 4*time.Second {
				t.Errorf("waits %v, want 1s 2s 4s", n.Delays)
			}
		}()
	}
	wg.Wait()
	// A Ticker works on a copy too: the shared value's sequence is untouched.
	ticker := NewTicker(WithContext(context.Background(), shared))
	<-ticker.C
	start := time.Now()
	<-ticker.C
	if d := time.Since(start); d != time.Second {
		t.Errorf("the Ticker's first wait %v, want 1s", d)
	}
	ticker.Stop()
	if got := shared.NextBackOff(); got != time.Second {
		t.Errorf("after the calls and the Ticker, the shared BackOff's next wait is %v; want 1s, untouched", got)
	}
}

// The BackOff is Reset before the first attempt, so a previously used
// BackOff may be passed.
func TestDriverResetsTheBackOffBeforeTheFirstAttempt(t *testing.T) {
	for _, e := range specEntries {
		t.Run(e.name, func(t *testing.T) {
			var events []string
			b := &specBackOff{events: &events, seq: []time.Duration{0}, repeat: true}
			b.i = 1 // a BackOff used before: Stop unless it is Reset
			op := specScript(func(n int) (int, error) {
				events = append(events, "op")
				if n < 3 {
					return n, attemptErr(n)
				}
				return 100, nil
			})
			_, err := e.run(context.Background(), op.Run, WithBackOff(noClone{b}))
			if e.name == "Retrier" {
				// A Retrier is shared by concurrent calls: it refuses a
				// BackOff it cannot clone, before any attempt.
				if !errors.Is(err, ErrInvalidConfiguration) || !strings.Contains(err.Error(), "no Clone method") || op.Count() != 0 {
					t.Fatalf("got %v after %d attempts, want ErrInvalidConfiguration naming the missing Clone, before any", err, op.Count())
				}
				return
			}
			if err != nil {
				t.Fatalf("got %v, want success", err)
			}
			if len(events) < 2 || events[0] != "reset" || events[1] != "op" {
				t.Fatalf("events %v, want Reset before the first attempt", events)
			}
			if b.resets != 1 {
				t.Errorf("Reset called %d times, want once (events %v)", b.resets, events)
			}
			if op.Count() != 3 {
				t.Errorf("the operation ran %d times, want 3", op.Count())
			}
		})
	}
}

// A used *ExponentialBackOff starts from its InitialInterval again, every
// time it is given to the driver.
func TestDriverRestartsAUsedExponentialBackOff(t *testing.T) {
	b := specExp(time.Second, time.Minute)
	for range 4 {
		b.NextBackOff()
	}
	for run := range 2 {
		clk := newSpecClock()
		op := specFailThenSucceed(3)
		var err error
		waits := specDrive(t, clk, nil, func() {
			_, err = Retry(op.Run, WithBackOff(b), WithClock(clk))
		})
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}; !slices.Equal(waits, want) {
			t.Errorf("run %d: waits %v, want %v", run, waits, want)
		}
	}
}

// One *ExponentialBackOff shared by concurrent Retry calls: no data race
// (run with -race), and each call sees the BackOff's sequence from its
// start, as if it had the BackOff to itself; with the default randomized
// BackOff, each wait lies within ±50% of that sequence.
func TestDriverSharesAnExponentialBackOffAcrossGoroutines(t *testing.T) {
	cases := []struct {
		name    string
		backOff *ExponentialBackOff
		nominal []time.Duration
		spread  float64
	}{
		{"no jitter", specExp(time.Second, time.Minute), []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, 0},
		{"default", NewExponentialBackOff(), []time.Duration{500 * time.Millisecond, 750 * time.Millisecond, 1125 * time.Millisecond}, 0.5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				const calls = 50
				var wg sync.WaitGroup
				errs := make(chan error, calls)
				for range calls {
					wg.Go(func() {
						var n specNotify
						op := specFailThenSucceed(3)
						if _, err := RetryCtx(ctx, op.Run, WithBackOff(c.backOff), WithNotify(n.Notify)); err != nil {
							errs <- err
							return
						}
						if len(n.Delays) != len(c.nominal) {
							errs <- fmt.Errorf("waits %v, want %d", n.Delays, len(c.nominal))
							return
						}
						for i, d := range n.Delays {
							lo := time.Duration(float64(c.nominal[i]) * (1 - c.spread))
							hi := time.Duration(float64(c.nominal[i]) * (1 + c.spread))
							if d < lo || d > hi {
								errs <- fmt.Errorf("wait %d is %v, outside [%v, %v]", i+1, d, lo, hi)
							}
						}
					})
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Error(err)
				}
			})
		})
	}
}

// "The default is NewExponentialBackOff": with no WithBackOff, the waits
// follow the default BackOff's randomized intervals from its start.
func TestDriverDefaultBackOff(t *testing.T) {
	for _, e := range specEntries {
		t.Run(e.name, func(t *testing.T) {
			clk := newSpecClock()
			op := specFailThenSucceed(4)
			var err error
			waits := specDrive(t, clk, nil, func() { _, err = e.run(context.Background(), op.Run, WithClock(clk)) })
			if err != nil {
				t.Fatal(err)
			}
			nominal := []time.Duration{500 * time.Millisecond, 750 * time.Millisecond, 1125 * time.Millisecond, 1687500 * time.Microsecond}
			if len(waits) != len(nominal) {
				t.Fatalf("waits %v, want %d", waits, len(nominal))
			}
			for i, d := range waits {
				if d < nominal[i]/2 || d > nominal[i]*3/2 {
					t.Errorf("wait %d is %v, outside %v ± 50%%", i+1, d, nominal[i])
				}
			}
		})
	}
}
