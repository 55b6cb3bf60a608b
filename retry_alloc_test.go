package backoff

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

var errTransient = errors.New("transient")

func succeed() (int, error) { return 1, nil }

func isTransient(err error) bool { return errors.Is(err, errTransient) }

var retrier = NewRetrier(WithMaxTries(5), WithMaxElapsedTime(0))

// nopInstrumenter observes nothing.
type nopInstrumenter struct{}

func (nopInstrumenter) BeforeAttempt(ctx context.Context, _ State) context.Context { return ctx }
func (nopInstrumenter) AfterAttempt(context.Context, State)                        {}

// The success path builds nothing that only a retry needs.
func TestSuccessPathAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		run  func()
	}{
		{"Retry defaults", func() { _, _ = Retry(succeed) }},
		{"RetryCtx defaults", func() { _, _ = RetryCtx(ctx, succeed) }},
		{"RetryError defaults", func() { _ = RetryError(func() error { return nil }) }},
		{"Do defaults", func() { _, _ = Do(ctx, func(context.Context) (int, error) { return 1, nil }) }},
		{"classifier", func() { _, _ = Retry(succeed, WithRetryable(isTransient)) }},
		{"instrumenter", func() { _, _ = Retry(succeed, WithInstrumenter(nopInstrumenter{})) }},
		{"limits", func() { _, _ = Retry(succeed, WithMaxTries(5), WithMaxElapsedTime(0)) }},
		{"DoErr", func() { _ = DoErr(ctx, func(context.Context) error { return nil }, WithMaxTries(2)) }},
		{"Retrier", func() { _ = retrier.DoErr(ctx, func(context.Context) error { return nil }) }},
	}
	for _, c := range cases {
		if n := testing.AllocsPerRun(200, c.run); n != 0 {
			t.Errorf("%s: %v allocations per successful call, want 0", c.name, n)
		}
	}
}

// A zero wait creates no timer and does not park: on a mock clock no timer
// is started, and in a synctest bubble no virtual time passes, which it
// would if the driver had blocked on a timer.
func TestZeroWaitsStartNoTimer(t *testing.T) {
	failTwice := func() func() (int, error) {
		n := 0
		return func() (int, error) {
			if n++; n < 3 {
				return 0, errTransient
			}
			return n, nil
		}
	}
	clk := newSpecClock()
	if _, err := Retry(failTwice(), WithBackOff(&ZeroBackOff{}), WithClock(clk)); err != nil {
		t.Fatal(err)
	}
	if n := len(clk.Waits); n != 0 {
		t.Errorf("%d timers started for zero waits, want none", n)
	}
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if _, err := Retry(failTwice(), WithBackOff(&ZeroBackOff{})); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("%v of virtual time passed over zero waits, want none", d)
		}
	})
	if n := testing.AllocsPerRun(100, func() { _, _ = Retry(failTwice(), WithBackOff(&ZeroBackOff{})) }); n > 1 {
		t.Errorf("%v allocations for three attempts with zero waits, want at most 1 (the test's own closure)", n)
	}
}
