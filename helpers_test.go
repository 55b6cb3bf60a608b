package backoff

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff/internal/testkit/spectest"
)

// The mock clock and its driver are spectest's: specClock reports every
// timer started on it, specDrive answers each wait.
type specClock = spectest.Clock

var (
	newSpecClock = spectest.NewClock
	specDrive    = spectest.Drive
	specCancelAt = spectest.CancelAt
)

// The scripted operations are spectest's.
type specOp = spectest.Op

var (
	specScript          = spectest.Script
	specAlways          = spectest.Always
	specFailThenSucceed = spectest.FailThenSucceed
	attemptErr          = spectest.AttemptErr
)

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
	spectest.CheckStop(t, err, re.Cause, re.LastErr, cause, lastErr)
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
type specNotify = spectest.Notify

type specKey struct{}

// withRandom and withJitter set the Random and Jitter fields, as options.
func withRandom(fn func() float64) ExponentialBackOffOption {
	return func(b *ExponentialBackOff) { b.Random = fn }
}

func withJitter(j Jitter) ExponentialBackOffOption {
	return func(b *ExponentialBackOff) { b.Jitter = j }
}

// Clone returns b itself, so that a test sees every call on the one value
// it made: a Retrier, which refuses a BackOff it cannot clone, takes it.
func (b *specBackOff) Clone() BackOff { return b }

// noClone is a BackOff without a Clone method: runs use it as it is.
type noClone struct{ BackOff }
