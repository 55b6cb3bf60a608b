package backoff

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

// nextWait returns the duration of the next timer started on c.
func nextWait(t *testing.T, c *specClock) time.Duration {
	t.Helper()
	select {
	case d := <-c.waits:
		return d
	case <-time.After(specGuard): // a safety net against a hang, never reached when the test passes
		t.Fatal("the Ticker started no timer")
		return 0
	}
}

func receive(t *testing.T, c <-chan time.Time) (time.Time, bool) {
	t.Helper()
	select {
	case tick, ok := <-c:
		return tick, ok
	case <-time.After(specGuard): // a safety net, never reached when the test passes
		t.Fatal("no tick and no close")
		return time.Time{}, false
	}
}

func TestTickerTicksAtTheBackOffsTimes(t *testing.T) {
	defer goleak.VerifyNone(t)
	clk := newSpecClock()
	b := NewExponentialBackOff(WithInitialInterval(time.Second), WithMultiplier(2), WithRandomizationFactor(0))
	ticker := NewTickerWithClock(b, clk)
	defer ticker.Stop()

	start := clk.Now()
	if tick, _ := receive(t, ticker.C); !tick.Equal(start) {
		t.Fatalf("first tick at %v, want at once (%v)", tick, start)
	}
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		d := nextWait(t, clk)
		if d != want {
			t.Fatalf("wait %d: %v, want %v", i+1, d, want)
		}
		clk.Add(d)
		tick, ok := receive(t, ticker.C)
		if !ok || !tick.Equal(clk.Now()) {
			t.Fatalf("tick %d: %v (ok=%v), want %v", i+2, tick, ok, clk.Now())
		}
	}
}

// The Ticker ticks at least once, then closes its channel when the BackOff
// stops.
func TestTickerClosesWhenTheBackOffStops(t *testing.T) {
	defer goleak.VerifyNone(t)
	ticker := NewTickerWithClock(&StopBackOff{}, newSpecClock())
	if _, ok := receive(t, ticker.C); !ok {
		t.Fatal("no first tick")
	}
	if _, ok := receive(t, ticker.C); ok {
		t.Fatal("a second tick from a stopped BackOff")
	}
	ticker.Stop()
}

// Stop is synchronous: when it returns no tick is delivered, the channel is
// closed and the goroutine is gone, even with a tick pending.
func TestTickerStopIsSynchronous(t *testing.T) {
	defer goleak.VerifyNone(t)
	clk := newSpecClock()
	ticker := NewTickerWithClock(NewConstantBackOff(time.Second), clk)
	receive(t, ticker.C)
	clk.Add(nextWait(t, clk)) // a tick is now waiting to be sent
	ticker.Stop()
	if tick, ok := <-ticker.C; ok {
		t.Fatalf("tick %v delivered after Stop returned", tick)
	}
	clk.Add(time.Hour)
	if _, ok := <-ticker.C; ok {
		t.Fatal("tick after Stop and an hour")
	}
	ticker.Stop() // a second Stop is harmless
}

func TestTickerStopFromManyGoroutines(t *testing.T) {
	defer goleak.VerifyNone(t)
	ticker := NewTickerWithClock(NewConstantBackOff(time.Minute), newSpecClock())
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(ticker.Stop)
	}
	wg.Wait()
	for range ticker.C {
	}
}

// Reset mid-run restarts the sequence from the initial interval.
func TestTickerResetRestartsFromTheInitialInterval(t *testing.T) {
	defer goleak.VerifyNone(t)
	clk := newSpecClock()
	b := NewExponentialBackOff(WithInitialInterval(time.Second), WithMultiplier(2), WithRandomizationFactor(0))
	ticker := NewTickerWithClock(b, clk)
	defer ticker.Stop()
	receive(t, ticker.C)
	clk.Add(nextWait(t, clk))
	receive(t, ticker.C)
	if d := nextWait(t, clk); d != 2*time.Second {
		t.Fatalf("second wait %v, want 2s", d)
	}
	ticker.Reset()
	if d := nextWait(t, clk); d != time.Second {
		t.Fatalf("wait after Reset %v, want the initial 1s", d)
	}
	clk.Add(time.Second)
	if tick, _ := receive(t, ticker.C); !tick.Equal(clk.Now()) {
		t.Fatalf("tick after Reset at %v, want %v", tick, clk.Now())
	}
}

// A BackOff wrapped with WithContext ends the Ticker when the context ends,
// in the middle of a wait.
func TestTickerEndsWithItsContext(t *testing.T) {
	defer goleak.VerifyNone(t)
	ctx, cancel := context.WithCancel(context.Background())
	clk := newSpecClock()
	ticker := NewTickerWithClock(WithContext(ctx, NewConstantBackOff(time.Hour)), clk)
	receive(t, ticker.C)
	nextWait(t, clk)
	cancel()
	if _, ok := receive(t, ticker.C); ok {
		t.Fatal("tick after the context was cancelled")
	}
	ticker.Stop()
}

func TestNewTickerRejectsBadInput(t *testing.T) {
	cases := []struct {
		name string
		make func()
		want string
	}{
		{"nil BackOff", func() { NewTicker(nil) }, "nil"},
		{"invalid BackOff", func() { NewTicker(&ExponentialBackOff{Multiplier: 0.1}) }, "Multiplier"},
		{"negative constant", func() { NewTicker(NewConstantBackOff(-time.Second)) }, "Interval"},
		{"nil clock", func() { NewTickerWithClock(&ZeroBackOff{}, nil) }, "clock"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, c.want) {
					t.Fatalf("panic %q, want one naming %q", msg, c.want)
				}
			}()
			c.make()
		})
	}
}

// Without a clock the Ticker runs on the time package, which a synctest
// bubble makes virtual.
func TestTickerOnRealTimeInABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ticker := NewTicker(NewConstantBackOff(time.Minute))
		first := <-ticker.C
		second := <-ticker.C
		if gap := second.Sub(first); gap != time.Minute {
			t.Errorf("ticks %v apart, want 1m", gap)
		}
		ticker.Stop()
		if _, ok := <-ticker.C; ok {
			t.Error("tick after Stop")
		}
	})
}

// Reset while a tick waits to be received, and the BackOff's context ending
// then, are both handled; Reset after Stop does nothing.
func TestTickerWithAPendingTick(t *testing.T) {
	defer goleak.VerifyNone(t)
	clk := newSpecClock()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := NewExponentialBackOff(WithInitialInterval(time.Second), WithMultiplier(2), WithRandomizationFactor(0))
	ticker := NewTickerWithClock(WithContext(ctx, b), clk)
	receive(t, ticker.C)
	clk.Add(nextWait(t, clk)) // 1s: a tick is now pending
	ticker.Reset()            // while the tick waits to be sent
	receive(t, ticker.C)
	if d := nextWait(t, clk); d != time.Second {
		t.Fatalf("wait after a Reset with a pending tick: %v, want the initial 1s", d)
	}
	clk.Add(time.Second) // a tick is pending again
	cancel()
	if _, ok := receive(t, ticker.C); ok {
		// The pending tick may win the race with the cancel once; after
		// it, the channel must close.
		if _, ok := receive(t, ticker.C); ok {
			t.Fatal("ticks go on after the BackOff's context ended")
		}
	}
	ticker.Stop()
	ticker.Reset() // after Stop: returns at once
}
