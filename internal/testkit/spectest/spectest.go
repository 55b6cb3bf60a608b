// Package spectest holds what the module's tests share to drive code that
// waits on a mock clock: a clock that reports each timer it starts, and a
// driver that answers each wait. It imports nothing of the module, so that
// any package's internal tests may use it.
package spectest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
)

// Clock is a mock clock that reports every timer the code under test
// starts, after the timer exists, so a test advances the clock exactly when
// something waits on it and never sooner.
type Clock struct {
	*clock.Mock
	Waits chan time.Duration
}

// NewClock returns a Clock at the mock clock's epoch.
func NewClock() *Clock {
	return &Clock{Mock: clock.NewMock(), Waits: make(chan time.Duration, 1024)}
}

// Timer starts a mock timer, then reports its duration.
func (c *Clock) Timer(d time.Duration) *clock.Timer {
	t := c.Mock.Timer(d)
	c.Waits <- d
	return t
}

var _ clock.Clock = (*Clock)(nil)

// Guard is how long a test waits for a goroutine it started before it
// declares a hang. It is a safety net that a passing test never reaches.
const Guard = 10 * time.Second

// Drive runs call on a goroutine of its own and serves every wait it starts
// on clk with react (Advance if react is nil), until call returns. It
// returns the waits in the order they were started.
func Drive(t testing.TB, clk *Clock, react func(i int, d time.Duration), call func()) []time.Duration {
	t.Helper()
	if react == nil {
		react = Advance(clk)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		call()
	}()
	guard := time.NewTimer(Guard)
	defer guard.Stop()
	var waits []time.Duration
	for {
		select {
		case d := <-clk.Waits:
			waits = append(waits, d)
			react(len(waits)-1, d)
		case <-done:
			for {
				select {
				case d := <-clk.Waits:
					waits = append(waits, d)
				default:
					return waits
				}
			}
		case <-guard.C:
			t.Fatalf("the call did not return; waits so far: %v", waits)
			return nil
		}
	}
}

// Advance returns a react function for Drive that lets every wait run to
// its end.
func Advance(clk *Clock) func(int, time.Duration) {
	return func(_ int, d time.Duration) { clk.Add(d) }
}

// CancelAt returns a react function that lets the first n waits run to
// their end and cancels, instead of advancing, the one after them.
func CancelAt(clk *Clock, n int, cancel func()) func(int, time.Duration) {
	return func(i int, d time.Duration) {
		if i < n {
			clk.Add(d)
			return
		}
		cancel()
	}
}

// Op is a scripted operation: attempt n (from 1) returns Script(n). It
// counts its calls and is safe for concurrent use.
type Op struct {
	mu     sync.Mutex
	calls  int
	script func(n int) (int, error)
}

// Run is the operation.
func (o *Op) Run() (int, error) {
	o.mu.Lock()
	o.calls++
	n := o.calls
	o.mu.Unlock()
	return o.script(n)
}

// Count returns how many times Run was called.
func (o *Op) Count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.calls
}

// Script returns an operation whose attempt n returns script(n).
func Script(script func(n int) (int, error)) *Op { return &Op{script: script} }

// Always returns an operation whose attempt n returns (n, AttemptErr(n)).
func Always() *Op {
	return Script(func(n int) (int, error) { return n, AttemptErr(n) })
}

// FailThenSucceed returns an operation whose first k attempts return
// (n, AttemptErr(n)), and every later one (100, nil).
func FailThenSucceed(k int) *Op {
	return Script(func(n int) (int, error) {
		if n <= k {
			return n, AttemptErr(n)
		}
		return 100, nil
	})
}

// AttemptErr is the distinct error of attempt n.
func AttemptErr(n int) error { return &attemptError{n: n} }

type attemptError struct{ n int }

func (e *attemptError) Error() string { return fmt.Sprintf("failure %d", e.n) }

// Is matches another attempt error of the same attempt.
func (e *attemptError) Is(target error) bool {
	t, ok := target.(*attemptError)
	return ok && t.n == e.n
}

// Notify records the calls of a backoff.Notify.
type Notify struct {
	mu     sync.Mutex
	Errs   []error
	Delays []time.Duration
}

// Notify is the function to give WithNotify.
func (n *Notify) Notify(err error, d time.Duration) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.Errs = append(n.Errs, err)
	n.Delays = append(n.Delays, d)
}

// CheckStop checks the shape of a failure err, an *Error of package
// backoff whose Cause is gotCause and whose LastErr is gotLast: its Cause
// matches cause and its LastErr lastErr (both with errors.Is, and lastErr
// by message too; a nil lastErr means no attempt's error), its Error() is
// lastErr's message undecorated, and it matches both with errors.Is.
func CheckStop(t testing.TB, err, gotCause, gotLast, cause, lastErr error) {
	t.Helper()
	if !errors.Is(gotCause, cause) {
		t.Errorf("Cause = %v, want %v", gotCause, cause)
	}
	if !errors.Is(err, cause) {
		t.Errorf("errors.Is(err, %v) = false", cause)
	}
	if lastErr == nil {
		if gotLast != nil {
			t.Errorf("LastErr = %v, want nil", gotLast)
		}
		return
	}
	if gotLast == nil || !errors.Is(gotLast, lastErr) || gotLast.Error() != lastErr.Error() {
		t.Errorf("LastErr = %v, want %v", gotLast, lastErr)
	}
	if !errors.Is(err, lastErr) {
		t.Errorf("errors.Is(err, %v) = false", lastErr)
	}
	if got, want := err.Error(), lastErr.Error(); got != want {
		t.Errorf("Error() = %q, want the last error undecorated: %q", got, want)
	}
}
