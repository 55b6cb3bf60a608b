package chaos

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
)

// draws returns a Rand that returns ds in turn, and a count of the draws
// taken; a draw past the end fails the test.
func draws(t *testing.T, ds ...float64) (func() float64, *int) {
	n := new(int)
	return func() float64 {
		if *n >= len(ds) {
			t.Errorf("draw %d taken, only %d scripted", *n+1, len(ds))
			return 0.999
		}
		*n++
		return ds[*n-1]
	}, n
}

// isFailure reports whether err is err marked with guard.Failure: it
// matches target and is not target itself.
func isFailure(err, target error) bool { return err != target && errors.Is(err, target) }

func TestAllowDraws(t *testing.T) {
	cases := []struct {
		name      string
		cfg       Config
		draws     []float64
		injected  bool // the call fails with errInjected
		delayed   bool
		drawsUsed int
	}{
		{"zero_config_draws_nothing", Config{}, nil, false, false, 0},
		{"error_certain_draws_nothing", Config{ErrorProbability: 1}, nil, true, false, 0},
		{"error_below", Config{ErrorProbability: 0.5}, []float64{0.49}, true, false, 1},
		{"error_at_probability", Config{ErrorProbability: 0.5}, []float64{0.5}, false, false, 1},
		{"error_above", Config{ErrorProbability: 0.5}, []float64{0.9}, false, false, 1},
		{"error_nan_draw", Config{ErrorProbability: 0.5}, []float64{math.NaN()}, false, false, 1},
		{"latency_then_error", Config{LatencyProbability: 0.5, ErrorProbability: 0.5}, []float64{0.1, 0.2}, true, true, 2},
		{"latency_only", Config{LatencyProbability: 0.5, ErrorProbability: 0.5}, []float64{0.1, 0.7}, false, true, 2},
		{"error_only", Config{LatencyProbability: 0.5, ErrorProbability: 0.5}, []float64{0.7, 0.2}, true, false, 2},
		{"latency_certain", Config{LatencyProbability: 1, ErrorProbability: 0.5}, []float64{0.7}, false, true, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			cfg.InjectedError = errInjected
			var used *int
			cfg.Rand, used = draws(t, c.draws...)
			in := New(cfg) // LatencyDuration 0: a delay is counted but takes no time
			_, err := in.Allow(context.Background(), guard.Call{Attempt: 1})
			if c.injected != isFailure(err, errInjected) || (!c.injected && err != nil) {
				t.Errorf("Allow: %v, want injected=%v", err, c.injected)
			}
			want := Stats{Calls: 1}
			if c.injected {
				want.InjectedErrors = 1
			}
			if c.delayed {
				want.InjectedDelays = 1
			}
			if got := in.Stats(); got != want {
				t.Errorf("Stats() = %+v, want %+v", got, want)
			}
			if *used != c.drawsUsed {
				t.Errorf("%d draws taken, want %d", *used, c.drawsUsed)
			}
		})
	}
}

// An injected delay waits LatencyDuration on the configured clock, and no
// longer; the call is then admitted.
func TestLatencyOnClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewMock()
		in := New(Config{LatencyProbability: 1, LatencyDuration: time.Second, Clock: clk})
		done := make(chan error, 1)
		go func() {
			_, err := in.Allow(context.Background(), guard.Call{Attempt: 1})
			done <- err
		}()
		synctest.Wait()
		clk.Add(time.Second - time.Nanosecond)
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Allow returned (%v) before LatencyDuration passed", err)
		default:
		}
		clk.Add(time.Nanosecond)
		if err := <-done; err != nil {
			t.Errorf("Allow after the delay: %v, want the call admitted", err)
		}
		if got := in.Stats(); got != (Stats{Calls: 1, InjectedDelays: 1}) {
			t.Errorf("Stats() = %+v, want one delayed call", got)
		}
	})
}

// A delay ends at once when the context is done: the call fails with the
// context's cause, marked as its own failure, the timer is stopped, and no
// error is injected after it.
func TestLatencyCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewMock()
		in := New(Config{LatencyProbability: 1, LatencyDuration: time.Hour, Clock: clk, ErrorProbability: 1, InjectedError: errInjected})
		cause := errors.New("caller gave up")
		ctx, cancel := context.WithCancelCause(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := in.Allow(ctx, guard.Call{Attempt: 1})
			done <- err
		}()
		synctest.Wait()
		cancel(cause)
		if err := <-done; !isFailure(err, cause) {
			t.Errorf("Allow: %v, want Failure of the context's cause", err)
		}
		now := clk.Now()
		if clk.WaitForAllTimers(); !clk.Now().Equal(now) {
			t.Error("the delay's timer was left running after the context ended")
		}
		if got := in.Stats(); got != (Stats{Calls: 1, InjectedDelays: 1}) {
			t.Errorf("Stats() = %+v, want one delayed call and no injected error", got)
		}
		// A context already done starts no timer.
		if _, err := in.Allow(ctx, guard.Call{Attempt: 1}); !isFailure(err, cause) {
			t.Errorf("Allow with a done context: %v, want Failure of its cause", err)
		}
		if clk.WaitForAllTimers(); !clk.Now().Equal(now) {
			t.Error("a timer was started for a context already done")
		}
		// Through Run, a delay cut short returns the cause itself.
		ctx, cancel = context.WithCancelCause(context.Background())
		go func() {
			done <- in.Run(ctx, func(context.Context) error { t.Error("fn called"); return nil })
		}()
		synctest.Wait()
		cancel(cause)
		if err := <-done; err != cause {
			t.Errorf("Run: %v, want the context's cause itself", err)
		}
	})
}

func TestRun(t *testing.T) {
	in := New(Config{ErrorProbability: 1, InjectedError: errInjected})
	called := false
	if err := in.Run(context.Background(), func(context.Context) error { called = true; return nil }); err != errInjected || called {
		t.Errorf("injected: %v (fn called: %v), want the InjectedError itself and fn not called", err, called)
	}
	fnErr := errors.New("fn failed")
	if err := New(Config{}).Run(context.Background(), func(context.Context) error { called = true; return fnErr }); err != fnErr || !called {
		t.Errorf("admitted: %v (fn called: %v), want fn's error", err, called)
	}
	if err := New(Config{}).Run(context.Background(), nil); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("nil fn: %v, want ErrInvalidConfiguration", err)
	}
	//lint:ignore SA1012 a nil context is what is being tested
	if err := New(Config{}).Run(nil, func(context.Context) error { t.Error("fn called"); return nil }); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("nil ctx: %v, want ErrInvalidConfiguration", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	slow := New(Config{LatencyProbability: 1, LatencyDuration: time.Hour})
	// A done context is refused before the Injector is asked (the rule of
	// guard.Run): no delay, nothing counted.
	if err := slow.Run(ctx, func(context.Context) error { t.Error("fn called"); return nil }); !errors.Is(err, context.Canceled) ||
		!errors.Is(err, backoff.ErrRefused) || slow.Stats() != (Stats{}) {
		t.Errorf("done context: %v, Stats %+v; want a refusal of context.Canceled, nothing counted", err, slow.Stats())
	}
	defer func() {
		if v := recover(); v != "boom" {
			t.Errorf("recovered %v, want the panic of fn", v)
		}
	}()
	_ = New(Config{}).Run(context.Background(), func(context.Context) error { panic("boom") })
}

// Concurrent calls: every call is counted, and every injected error is
// one that a caller received.
func TestConcurrentCounts(t *testing.T) {
	const goroutines, each = 32, 500
	in := New(Config{ErrorProbability: 0.3, InjectedError: errInjected, LatencyProbability: 0.2, Rand: Seeded(7)})
	var injected, admitted atomic.Uint64
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range each {
				_, err := in.Allow(context.Background(), guard.Call{Attempt: 1})
				switch {
				case err == nil:
					admitted.Add(1)
					in.Record(guard.Permit{}, guard.Outcome{})
				case isFailure(err, errInjected):
					injected.Add(1)
				default:
					t.Errorf("Allow: %v", err)
				}
			}
		})
	}
	wg.Wait()
	s := in.Stats()
	if s.Calls != goroutines*each || s.InjectedErrors != injected.Load() || admitted.Load()+injected.Load() != s.Calls {
		t.Errorf("Stats() = %+v; callers saw %d injected, %d admitted of %d", s, injected.Load(), admitted.Load(), goroutines*each)
	}
	if s.InjectedErrors == 0 || s.InjectedDelays == 0 {
		t.Errorf("Stats() = %+v, want some of each fault", s)
	}
}

// A call that is not injected allocates nothing (see also the test through
// a Policy, in policy_test.go).
func TestAdmitAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	miss := func() float64 { return 0.99 }
	cases := []struct {
		name string
		in   *Injector
	}{
		{"zero_config", New(Config{})},
		{"drawn_and_missed", New(Config{ErrorProbability: 0.5, InjectedError: errInjected, LatencyProbability: 0.5, LatencyDuration: time.Second, Rand: miss})},
		{"default_rand_certain_miss", New(Config{ErrorProbability: 0, LatencyProbability: 0})},
		{"seeded", New(Config{ErrorProbability: 1e-300, InjectedError: errInjected, Rand: Seeded(1)})},
	}
	for _, c := range cases {
		if n := guardtest.AdmittedAllocs(t, 200, c.in, ctx); n != 0 {
			t.Errorf("%s: %v allocations per admitted call, want 0", c.name, n)
		}
	}
}

func BenchmarkAllowRecord(b *testing.B) {
	in := New(Config{ErrorProbability: 0.5, InjectedError: errInjected, LatencyProbability: 0.5, LatencyDuration: time.Second, Rand: func() float64 { return 0.99 }})
	ctx := context.Background()
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p, _ := in.Allow(ctx, guard.Call{Attempt: 1})
			in.Record(p, guard.Outcome{})
		}
	})
	for _, bc := range []struct {
		name string
		in   *Injector
	}{
		{"parallel", in},
		{"parallel_default_rand", New(Config{ErrorProbability: 1e-9, InjectedError: errInjected})},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					p, _ := bc.in.Allow(ctx, guard.Call{Attempt: 1})
					bc.in.Record(p, guard.Outcome{})
				}
			})
		})
	}
	inj := New(Config{ErrorProbability: 1, InjectedError: errInjected})
	b.Run("injected_error", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = inj.Allow(ctx, guard.Call{Attempt: 1})
		}
	})
}

// Allow refuses a nil context, whatever the Config, as every guard of the
// module does, with the same words: an error matching
// ErrInvalidConfiguration, with nothing injected or counted.
func TestAllowNilContext(t *testing.T) {
	cases := []struct {
		name string
		in   *Injector
	}{
		{"nothing", New(Config{})},
		{"every_fault", New(Config{ErrorProbability: 1, InjectedError: errInjected, LatencyProbability: 1, LatencyDuration: time.Hour, Clock: clock.NewMock()})},
		{"invalid", New(Config{ErrorProbability: 0.5})},
		{"zero", &Injector{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			guardtest.RefusesNilContext(t, c.in, "chaos")
			if s := c.in.Stats(); s != (Stats{}) {
				t.Errorf("Stats() = %+v after Allow(nil), want nothing counted", s)
			}
		})
	}
}
