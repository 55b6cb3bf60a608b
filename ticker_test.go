package backoff

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// The Ticker ticks at once, then after each of the BackOff's waits: on the
// virtual time of a synctest bubble, where the gaps are the waits exactly.
func TestTickerTicksAtTheBackOffsTimes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewExponentialBackOff(WithInitialInterval(time.Second), WithMultiplier(2), WithRandomizationFactor(0))
		ticker := NewTicker(b)
		defer ticker.Stop()
		start := time.Now()
		if tick := <-ticker.C; !tick.Equal(start) {
			t.Fatalf("first tick at %v, want at once (%v)", tick, start)
		}
		for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
			from := time.Now()
			tick, ok := <-ticker.C
			if d := time.Since(from); !ok || d != want || !tick.Equal(time.Now()) {
				t.Fatalf("tick %d after %v (ok=%v) at %v, want after %v, at %v", i+2, d, ok, tick, want, time.Now())
			}
		}
	})
}

// The Ticker ticks at least once, then closes its channel when the BackOff
// stops.
func TestTickerClosesWhenTheBackOffStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ticker := NewTicker(&StopBackOff{})
		if _, ok := <-ticker.C; !ok {
			t.Fatal("no first tick")
		}
		if _, ok := <-ticker.C; ok {
			t.Fatal("a second tick from a stopped BackOff")
		}
		ticker.Stop()
	})
}

// Stop is synchronous: when it returns no tick is delivered, the channel is
// closed and the goroutine is gone, even with a tick pending.
func TestTickerStopIsSynchronous(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ticker := NewTicker(NewConstantBackOff(time.Second))
		<-ticker.C
		<-time.After(time.Second) // virtual: a tick is now waiting to be sent
		synctest.Wait()
		ticker.Stop()
		if tick, ok := <-ticker.C; ok {
			t.Fatalf("tick %v delivered after Stop returned", tick)
		}
		<-time.After(time.Hour)
		if _, ok := <-ticker.C; ok {
			t.Fatal("tick after Stop and an hour")
		}
		ticker.Stop() // a second Stop is harmless
	})
}

func TestTickerStopFromManyGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ticker := NewTicker(NewConstantBackOff(time.Minute))
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(ticker.Stop)
		}
		wg.Wait()
		for range ticker.C {
		}
	})
}

// Reset mid-run restarts the sequence from the initial interval.
func TestTickerResetRestartsFromTheInitialInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewExponentialBackOff(WithInitialInterval(time.Second), WithMultiplier(2), WithRandomizationFactor(0))
		ticker := NewTicker(b)
		defer ticker.Stop()
		<-ticker.C
		<-ticker.C // after 1s; the Ticker now waits 2s
		synctest.Wait()
		from := time.Now()
		ticker.Reset()
		tick := <-ticker.C
		if d := time.Since(from); d != time.Second || !tick.Equal(time.Now()) {
			t.Fatalf("tick %v after Reset, want the initial 1s", d)
		}
	})
}

// A BackOff wrapped with WithContext ends the Ticker when the context ends,
// in the middle of a wait.
func TestTickerEndsWithItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		ticker := NewTicker(WithContext(ctx, NewConstantBackOff(time.Hour)))
		<-ticker.C
		synctest.Wait() // the Ticker waits its hour
		cancel()
		if _, ok := <-ticker.C; ok {
			t.Fatal("tick after the context was cancelled")
		}
		ticker.Stop()
	})
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
		{"typed nil BackOff", func() { NewTicker((*ExponentialBackOff)(nil)) }, "nil"},
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
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		b := NewExponentialBackOff(WithInitialInterval(time.Second), WithMultiplier(2), WithRandomizationFactor(0))
		ticker := NewTicker(WithContext(ctx, b))
		<-ticker.C
		<-time.After(time.Second) // a tick is now pending
		synctest.Wait()
		ticker.Reset() // while the tick waits to be sent
		<-ticker.C
		from := time.Now()
		<-ticker.C
		if d := time.Since(from); d != time.Second {
			t.Fatalf("wait after a Reset with a pending tick: %v, want the initial 1s", d)
		}
		<-time.After(2 * time.Second) // a tick is pending again
		synctest.Wait()
		cancel()
		if _, ok := <-ticker.C; ok {
			// The pending tick may win the race with the cancel once; after
			// it, the channel must close.
			if _, ok := <-ticker.C; ok {
				t.Fatal("ticks go on after the BackOff's context ended")
			}
		}
		ticker.Stop()
		ticker.Reset() // after Stop: returns at once
	})
}
