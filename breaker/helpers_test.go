package breaker_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/guard"
)

var errBoom = errors.New("boom")

// newMock returns a mock clock set to a time that is not the zero one.
func newMock() *clock.Mock {
	m := clock.NewMock()
	m.Set(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	return m
}

// call makes one call through b with Allow and Record, ending with err,
// and reports whether b admitted it.
func call(b *breaker.Breaker, err error) bool {
	p, aerr := b.Allow(context.Background(), guard.Call{Attempt: 1})
	if aerr != nil {
		return false
	}
	b.Record(p, guard.Outcome{Err: err})
	return true
}

// calls makes n calls ending with err, each of which must be admitted.
func calls(t *testing.T, b *breaker.Breaker, n int, err error) {
	t.Helper()
	for i := range n {
		if !call(b, err) {
			t.Fatalf("call %d of %d (err %v) was refused", i+1, n, err)
		}
	}
}

// admit asks b to admit a call, which it must.
func admit(t *testing.T, b *breaker.Breaker) guard.Permit {
	t.Helper()
	p, err := b.Allow(context.Background(), guard.Call{Attempt: 1})
	if err != nil {
		t.Fatalf("Allow refused: %v", err)
	}
	return p
}

// refused asks b to admit a call, which it must refuse with an *OpenError,
// and returns the error.
func refused(t *testing.T, b *breaker.Breaker) *breaker.OpenError {
	t.Helper()
	_, err := b.Allow(context.Background(), guard.Call{Attempt: 1})
	var oe *breaker.OpenError
	if !errors.As(err, &oe) || !errors.Is(err, breaker.ErrCircuitOpen) {
		t.Fatalf("Allow = %v, want an *OpenError matching ErrCircuitOpen", err)
	}
	return oe
}

func wantState(t *testing.T, b *breaker.Breaker, want breaker.State) {
	t.Helper()
	if got := b.State(); got != want {
		t.Fatalf("State() = %v, want %v", got, want)
	}
}

// changes records the state changes a hook is told of.
type changes struct {
	mu  sync.Mutex
	got []string
}

func (c *changes) hook(from, to breaker.State) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, fmt.Sprintf("%v>%v", from, to))
}

func (c *changes) want(t *testing.T, want ...string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !slices.Equal(c.got, want) {
		t.Fatalf("state changes %q, want %q", c.got, want)
	}
}

// tripped returns a breaker on the mock clk that opens on one failure for
// open, already open, with opts after those.
func tripped(t *testing.T, clk *clock.Mock, open time.Duration, opts ...breaker.Option) *breaker.Breaker {
	t.Helper()
	b := breaker.New(append([]breaker.Option{
		breaker.WithClock(clk), breaker.WithConsecutiveFailures(1), breaker.WithOpenDuration(open),
	}, opts...)...)
	calls(t, b, 1, errBoom)
	wantState(t, b, breaker.Open)
	return b
}

// dueForProbe returns a breaker that one failure opened for a second, on
// clk, moved on by that second: its next call is a probe.
func dueForProbe(t *testing.T, clk *clock.Mock, opts ...breaker.Option) *breaker.Breaker {
	t.Helper()
	b := tripped(t, clk, time.Second, opts...)
	clk.Add(time.Second)
	return b
}
