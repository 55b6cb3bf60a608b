package herd

import (
	"context"
	"testing"
	"time"
)

// The virtual clock tells the simulation's time, and refuses, loudly, to
// set a timer that nothing would ever fire.
func TestVirtualClock(t *testing.T) {
	t.Parallel()
	now := 1500 * time.Millisecond
	c := virtualClock{now: &now}
	if got := c.Now(); !got.Equal(epoch.Add(1500 * time.Millisecond)) {
		t.Fatalf("Now = %v, want the epoch plus 1.5s", got)
	}
	start := c.Now()
	now += 250 * time.Millisecond
	if got := c.Since(start); got != 250*time.Millisecond {
		t.Fatalf("Since = %v, want 250ms", got)
	}
	if got := c.Until(start.Add(time.Second)); got != 750*time.Millisecond {
		t.Fatalf("Until = %v, want 750ms", got)
	}
	timers := map[string]func(){
		"After":        func() { c.After(time.Second) },
		"AfterFunc":    func() { c.AfterFunc(time.Second, func() {}) },
		"Sleep":        func() { c.Sleep(time.Second) },
		"Tick":         func() { c.Tick(time.Second) },
		"Ticker":       func() { c.Ticker(time.Second) },
		"Timer":        func() { c.Timer(time.Second) },
		"WithDeadline": func() { c.WithDeadline(context.Background(), c.Now()) },
		"WithTimeout":  func() { c.WithTimeout(context.Background(), time.Second) },
	}
	for name, call := range timers {
		func() {
			defer func() {
				if r := recover(); r != noTimers {
					t.Errorf("%s: recovered %v, want the panic %q", name, r, noTimers)
				}
			}()
			call()
		}()
	}
}
