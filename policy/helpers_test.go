package policy_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
)

// asError returns err as a *backoff.Error, failing the test if it is not
// one.
func asError(t *testing.T, err error) *backoff.Error {
	t.Helper()
	if err == nil {
		t.Fatal("got a nil error, want a *backoff.Error")
	}
	var re *backoff.Error
	if !errors.As(err, &re) {
		t.Fatalf("got %T (%v), want a *backoff.Error", err, err)
	}
	return re
}

// checkStop checks the shape of a failure: a *backoff.Error whose Cause
// matches cause and whose LastErr matches lastErr (with errors.Is, and
// lastErr by message too; a nil lastErr means no attempt's error), whose
// Error() is lastErr's message undecorated, and which matches both with
// errors.Is.
func checkStop(t *testing.T, err, cause, lastErr error) *backoff.Error {
	t.Helper()
	re := asError(t, err)
	spectest.CheckStop(t, err, re.Cause, re.LastErr, cause, lastErr)
	return re
}

// run adapts a scripted operation of spectest to the function a Policy
// runs.
func run(op *spectest.Op) func(context.Context) (int, error) {
	return func(context.Context) (int, error) { return op.Run() }
}

// zero is the BackOff option of a retry stage that does not wait.
func zero() backoff.RetryOption { return backoff.WithBackOff(&backoff.ZeroBackOff{}) }

// exp returns an exponential BackOff without randomization: waits of
// initial, initial×2, initial×4, ... capped at max.
func exp(initial, max time.Duration) *backoff.ExponentialBackOff {
	return backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(initial),
		backoff.WithMaxInterval(max),
		backoff.WithMultiplier(2),
		backoff.WithRandomizationFactor(0),
	)
}

var errRefusedSpec = errors.New("spec: refused")

// guardLog is a recording Guard: it admits every call unless refuse says
// otherwise, and logs its calls into a shared event log.
type guardLog struct {
	mu       sync.Mutex
	name     string
	events   *[]string
	refuse   func(c guard.Call) error
	outcomes []guard.Outcome
	token    uint64
}

func (g *guardLog) log(e string) {
	if g.events != nil {
		*g.events = append(*g.events, e)
	}
}

func (g *guardLog) Allow(_ context.Context, c guard.Call) (guard.Permit, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.log(fmt.Sprintf("%s.allow(%d)", g.name, c.Attempt))
	if g.refuse != nil {
		if err := g.refuse(c); err != nil {
			return guard.Permit{}, err
		}
	}
	g.token++
	return guard.Permit{Token: g.token}, nil
}

func (g *guardLog) Record(p guard.Permit, o guard.Outcome) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.log(fmt.Sprintf("%s.record(%d)", g.name, p.Token))
	g.outcomes = append(g.outcomes, o)
}

// nopGuard admits everything.
type nopGuard struct{}

func (nopGuard) Allow(context.Context, guard.Call) (guard.Permit, error) { return guard.Permit{}, nil }
func (nopGuard) Record(guard.Permit, guard.Outcome)                      {}

// event is one call to an instrumenter.
type event struct {
	method string
	s      backoff.State
}

// instrumenter records every call it gets.
type instrumenter struct {
	mu     sync.Mutex
	events []event
}

func (in *instrumenter) BeforeAttempt(ctx context.Context, s backoff.State) context.Context {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.events = append(in.events, event{"before", s})
	return ctx
}

func (in *instrumenter) AfterAttempt(_ context.Context, s backoff.State) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.events = append(in.events, event{"after", s})
}

// countingClock is a spectest clock that counts every call to its methods:
// a reading (Now, Since, Until) or a timer.
type countingClock struct {
	*spectest.Clock
	mu    sync.Mutex
	calls int
}

func (c *countingClock) count() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
}

func (c *countingClock) Calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

func (c *countingClock) Now() time.Time                         { c.count(); return c.Clock.Now() }
func (c *countingClock) Since(t time.Time) time.Duration        { c.count(); return c.Clock.Since(t) }
func (c *countingClock) Until(t time.Time) time.Duration        { c.count(); return c.Clock.Until(t) }
func (c *countingClock) Timer(d time.Duration) *clock.Timer     { c.count(); return c.Clock.Timer(d) }
func (c *countingClock) After(d time.Duration) <-chan time.Time { c.count(); return c.Clock.After(d) }
func (c *countingClock) AfterFunc(d time.Duration, f func()) *clock.Timer {
	c.count()
	return c.Clock.AfterFunc(d, f)
}
func (c *countingClock) Sleep(d time.Duration)                 { c.count(); c.Clock.Sleep(d) }
func (c *countingClock) Tick(d time.Duration) <-chan time.Time { c.count(); return c.Clock.Tick(d) }
func (c *countingClock) Ticker(d time.Duration) *clock.Ticker  { c.count(); return c.Clock.Ticker(d) }
func (c *countingClock) WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	c.count()
	return c.Clock.WithDeadline(parent, d)
}
func (c *countingClock) WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	c.count()
	return c.Clock.WithTimeout(parent, d)
}

var _ clock.Clock = (*countingClock)(nil)
