package backoff

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
)

// specClock is a mock clock that reports every timer the code under test
// starts, after the timer exists, so a test advances the clock exactly when
// something waits on it and never sooner.
type specClock struct {
	*clock.Mock
	waits chan time.Duration
}

func newSpecClock() *specClock {
	return &specClock{Mock: clock.NewMock(), waits: make(chan time.Duration, 1024)}
}

// Timer starts a mock timer, then reports its duration.
func (c *specClock) Timer(d time.Duration) *clock.Timer {
	t := c.Mock.Timer(d)
	c.waits <- d
	return t
}

var _ clock.Clock = (*specClock)(nil)

// specGuard is how long a test waits for a goroutine it started before it
// declares a hang. It is a safety net that a passing test never reaches.
const specGuard = 10 * time.Second

// specDrive runs call on a goroutine of its own and serves every wait it
// starts on clk with react (specAdvance if react is nil), until call
// returns. It returns the waits in the order they were started.
func specDrive(t *testing.T, clk *specClock, react func(i int, d time.Duration), call func()) []time.Duration {
	t.Helper()
	if react == nil {
		react = specAdvance(clk)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		call()
	}()
	guard := time.NewTimer(specGuard)
	defer guard.Stop()
	var waits []time.Duration
	for {
		select {
		case d := <-clk.waits:
			waits = append(waits, d)
			react(len(waits)-1, d)
		case <-done:
			for {
				select {
				case d := <-clk.waits:
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

// specAdvance returns a react function for specDrive that lets every wait
// run to its end.
func specAdvance(clk *specClock) func(int, time.Duration) {
	return func(_ int, d time.Duration) { clk.Add(d) }
}

// specCancelAt returns a react function that lets the first n waits run to
// their end and cancels, instead of advancing, the one after them.
func specCancelAt(clk *specClock, n int, cancel func()) func(int, time.Duration) {
	return func(i int, d time.Duration) {
		if i < n {
			clk.Add(d)
			return
		}
		cancel()
	}
}

// specOp is a scripted operation: attempt n (from 1) returns script(n). It
// counts its calls and is safe for concurrent use.
type specOp struct {
	mu     sync.Mutex
	calls  int
	script func(n int) (int, error)
}

// run is the operation.
func (o *specOp) run() (int, error) {
	o.mu.Lock()
	o.calls++
	n := o.calls
	o.mu.Unlock()
	return o.script(n)
}

func (o *specOp) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.calls
}

// specScript returns an operation whose attempt n returns script(n).
func specScript(script func(n int) (int, error)) *specOp { return &specOp{script: script} }

// specAlways returns an operation whose attempt n returns (n, attemptErr(n)).
func specAlways() *specOp {
	return specScript(func(n int) (int, error) { return n, attemptErr(n) })
}

// specFailThenSucceed returns an operation whose first k attempts return
// (n, attemptErr(n)), and every later one (100, nil).
func specFailThenSucceed(k int) *specOp {
	return specScript(func(n int) (int, error) {
		if n <= k {
			return n, attemptErr(n)
		}
		return 100, nil
	})
}

// attemptErr is the distinct error of attempt n.
func attemptErr(n int) error { return &specAttemptError{n: n} }

type specAttemptError struct{ n int }

func (e *specAttemptError) Error() string { return fmt.Sprintf("failure %d", e.n) }

// Is matches another specAttemptError of the same attempt.
func (e *specAttemptError) Is(target error) bool {
	t, ok := target.(*specAttemptError)
	return ok && t.n == e.n
}

// specEntry is one of the driver's entry points, driven through a common
// shape. hasResult is false for the entry points that return only an
// error.
type specEntry struct {
	name      string
	hasResult bool
	live      bool // never starts the operation once ctx is done
	run       func(ctx context.Context, op func() (int, error), opts ...RetryOption) (int, error)
}

// specEntries lists every entry point. Retry and RetryError ignore ctx: the
// cases that need a context use specCtxEntries.
var specEntries = []specEntry{
	{"Retry", true, false, func(_ context.Context, op func() (int, error), opts ...RetryOption) (int, error) {
		return Retry(op, opts...)
	}},
	{"RetryCtx", true, false, func(ctx context.Context, op func() (int, error), opts ...RetryOption) (int, error) {
		return RetryCtx(ctx, op, opts...)
	}},
	{"RetryError", false, false, func(_ context.Context, op func() (int, error), opts ...RetryOption) (int, error) {
		return 0, RetryError(func() error { _, err := op(); return err }, opts...)
	}},
	{"RetryErrorCtx", false, false, func(ctx context.Context, op func() (int, error), opts ...RetryOption) (int, error) {
		return 0, RetryErrorCtx(ctx, func() error { _, err := op(); return err }, opts...)
	}},
	{"Do", true, true, func(ctx context.Context, op func() (int, error), opts ...RetryOption) (int, error) {
		return Do(ctx, func(context.Context) (int, error) { return op() }, opts...)
	}},
	{"DoErr", false, true, func(ctx context.Context, op func() (int, error), opts ...RetryOption) (int, error) {
		return 0, DoErr(ctx, func(context.Context) error { _, err := op(); return err }, opts...)
	}},
	{"Retrier", false, true, func(ctx context.Context, op func() (int, error), opts ...RetryOption) (int, error) {
		return 0, NewRetrier(opts...).DoErr(ctx, func(context.Context) error { _, err := op(); return err })
	}},
}

// specCtxEntries are the entry points that take a context.
var specCtxEntries = []specEntry{specEntries[1], specEntries[3], specEntries[4], specEntries[5], specEntries[6]}

// specAsError returns err as an *Error, failing the test if it is not one.
func specAsError(t *testing.T, err error) *Error {
	t.Helper()
	if err == nil {
		t.Fatal("got a nil error, want an *Error")
	}
	var re *Error
	if !errors.As(err, &re) {
		t.Fatalf("got %T (%v), want an *Error", err, err)
	}
	return re
}

// specCheckStop checks the shape of a failure: an *Error whose Cause is
// cause and whose LastErr is lastErr (both matched with errors.Is, and
// lastErr also by message), whose Error() is lastErr's message undecorated,
// and which matches both with errors.Is.
func specCheckStop(t *testing.T, err, cause, lastErr error) *Error {
	t.Helper()
	re := specAsError(t, err)
	if !errors.Is(re.Cause, cause) {
		t.Errorf("Cause = %v, want %v", re.Cause, cause)
	}
	if !errors.Is(err, cause) {
		t.Errorf("errors.Is(err, %v) = false", cause)
	}
	if lastErr == nil {
		if re.LastErr != nil {
			t.Errorf("LastErr = %v, want nil", re.LastErr)
		}
		return re
	}
	if re.LastErr == nil || !errors.Is(re.LastErr, lastErr) || re.LastErr.Error() != lastErr.Error() {
		t.Errorf("LastErr = %v, want %v", re.LastErr, lastErr)
	}
	if !errors.Is(err, lastErr) {
		t.Errorf("errors.Is(err, %v) = false", lastErr)
	}
	if got, want := err.Error(), lastErr.Error(); got != want {
		t.Errorf("Error() = %q, want the last error undecorated: %q", got, want)
	}
	return re
}

// specBackOff is a recording BackOff: it logs every call into a shared
// event log, and returns the waits in seq (Stop after them unless repeat).
type specBackOff struct {
	mu     sync.Mutex
	events *[]string
	seq    []time.Duration
	repeat bool // the last wait repeats instead of Stop
	i      int
	resets int
}

func (b *specBackOff) log(e string) {
	if b.events != nil {
		*b.events = append(*b.events, e)
	}
}

func (b *specBackOff) NextBackOff() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.log("next")
	if b.i >= len(b.seq) {
		if b.repeat && len(b.seq) > 0 {
			return b.seq[len(b.seq)-1]
		}
		return Stop
	}
	d := b.seq[b.i]
	b.i++
	return d
}

func (b *specBackOff) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.log("reset")
	b.i = 0
	b.resets++
}

// specExp returns an exponential BackOff without randomization: waits of
// initial, initial×2, initial×4, ... capped at max.
func specExp(initial, max time.Duration) *ExponentialBackOff {
	return NewExponentialBackOff(
		WithInitialInterval(initial),
		WithMaxInterval(max),
		WithMultiplier(2),
		WithRandomizationFactor(0),
	)
}

// specNotify records the calls of a Notify.
type specNotify struct {
	mu     sync.Mutex
	errs   []error
	delays []time.Duration
}

func (n *specNotify) notify(err error, d time.Duration) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.errs = append(n.errs, err)
	n.delays = append(n.delays, d)
}

type specKey struct{}

func specSum(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum
}

// withRandom and withJitter set the Random and Jitter fields, as options.
func withRandom(fn func() float64) ExponentialBackOffOption {
	return func(b *ExponentialBackOff) { b.Random = fn }
}

func withJitter(j Jitter) ExponentialBackOffOption {
	return func(b *ExponentialBackOff) { b.Jitter = j }
}
