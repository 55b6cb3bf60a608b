package bench

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	cenkaltiv5 "github.com/cenkalti/backoff/v5"
	"github.com/herdsafe/backoff"
)

// Code moved from cenkalti/backoff v5 keeps its behaviour: these tests run
// the same code against both, side by side, and compare what it does.
// (Where the two differ on purpose, docs/cenkalti.md, "Coming from
// cenkalti/backoff", says so: the error is always an *Error, carrying the
// operation's error as well as the cause, Retry takes no context,
// RetryAfter takes a duration and a cause, a zero Multiplier or
// MaxInterval takes its default, and MaxInterval caps the first interval
// too.)

// waits returns the first n waits of next.
func waits(n int, next func() time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = next()
	}
	return out
}

func TestCenkaltiDefaults(t *testing.T) {
	ours, theirs := backoff.NewExponentialBackOff(), cenkaltiv5.NewExponentialBackOff()
	if ours.InitialInterval != theirs.InitialInterval || ours.RandomizationFactor != theirs.RandomizationFactor ||
		ours.Multiplier != theirs.Multiplier || ours.MaxInterval != theirs.MaxInterval ||
		backoff.DefaultMaxElapsedTime != cenkaltiv5.DefaultMaxElapsedTime || backoff.Stop != cenkaltiv5.Stop {
		t.Errorf("defaults %+v (max elapsed %v), v5's %+v (max elapsed %v)", ours, backoff.DefaultMaxElapsedTime, theirs, cenkaltiv5.DefaultMaxElapsedTime)
	}
}

// The fields as a user sets them after NewExponentialBackOff, with no
// randomization, give the same waits, before and after a Reset.
func TestCenkaltiWaits(t *testing.T) {
	for _, c := range []struct {
		name            string
		initial, max    time.Duration
		multiplier      float64
		resetAfterFirst int
	}{
		{"set after New", 100 * time.Millisecond, time.Second, 2, 4},
		{"no wait", 0, time.Second, 2, 3},
		{"the defaults' multiplier", 10 * time.Millisecond, 5 * time.Second, 1.5, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			ours, theirs := backoff.NewExponentialBackOff(), cenkaltiv5.NewExponentialBackOff()
			ours.InitialInterval, ours.MaxInterval, ours.Multiplier, ours.RandomizationFactor = c.initial, c.max, c.multiplier, 0
			theirs.InitialInterval, theirs.MaxInterval, theirs.Multiplier, theirs.RandomizationFactor = c.initial, c.max, c.multiplier, 0
			got, want := waits(c.resetAfterFirst, ours.NextBackOff), waits(c.resetAfterFirst, theirs.NextBackOff)
			ours.Reset()
			theirs.Reset()
			got, want = append(got, waits(8, ours.NextBackOff)...), append(want, waits(8, theirs.NextBackOff)...)
			if !slices.Equal(got, want) {
				t.Errorf("waits %v\nv5's  %v", got, want)
			}
		})
	}
}

// An InitialInterval above MaxInterval: v5 waits it once, after each Reset,
// where MaxInterval caps it here; every later wait is the same.
func TestCenkaltiInitialAboveMax(t *testing.T) {
	ours, theirs := backoff.NewExponentialBackOff(), cenkaltiv5.NewExponentialBackOff()
	ours.InitialInterval, ours.MaxInterval, ours.Multiplier, ours.RandomizationFactor = 2*time.Second, time.Second, 3, 0
	theirs.InitialInterval, theirs.MaxInterval, theirs.Multiplier, theirs.RandomizationFactor = 2*time.Second, time.Second, 3, 0
	for range 2 { // from New, then after a Reset
		got, want := waits(5, ours.NextBackOff), waits(5, theirs.NextBackOff)
		if want[0] != 2*time.Second || got[0] != time.Second || !slices.Equal(got[1:], want[1:]) {
			t.Errorf("waits %v\nv5's  %v; want v5's but for the first, capped at 1s", got, want)
		}
		ours.Reset()
		theirs.Reset()
	}
}

// countingRun calls op through run and reports how many times op ran
// and the error run returned.
func countingRun(run func(op func() (int, error)) error, op func(n int) error) (int, error) {
	n := 0
	err := run(func() (int, error) {
		n++
		return n, op(n)
	})
	return n, err
}

// The driver makes the same attempts as v5's: the same limit on tries, a
// Permanent error ends it at once, and a context already done still runs
// the operation once. Whatever v5's error matches by errors.Is (the
// operation's error, or the context's), this driver's matches too.
func TestCenkaltiRetry(t *testing.T) {
	errFlaky := errors.New("flaky")
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		op   func(n int) error
		want int // attempts
	}{
		{"always fails", context.Background(), func(int) error { return errFlaky }, 4},
		{"succeeds at the third", context.Background(), func(n int) error {
			if n < 3 {
				return errFlaky
			}
			return nil
		}, 3},
		{"permanent at the second", context.Background(), func(n int) error {
			if n == 2 {
				return backoff.Permanent(errFlaky)
			}
			return errFlaky
		}, 2},
		{"context already done", done, func(int) error { return errFlaky }, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			ours, ourErr := countingRun(func(op func() (int, error)) error {
				_, err := backoff.RetryCtx(c.ctx, op, backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(4))
				return err
			}, c.op)
			theirs, theirErr := countingRun(func(op func() (int, error)) error {
				_, err := cenkaltiv5.Retry(c.ctx, op, cenkaltiv5.WithBackOff(&cenkaltiv5.ZeroBackOff{}), cenkaltiv5.WithMaxTries(4))
				return err
			}, func(n int) error {
				err := c.op(n)
				if errors.Is(err, backoff.ErrPermanent) { // the same mark, in v5's words
					return cenkaltiv5.Permanent(errFlaky)
				}
				return err
			})
			if ours != c.want || theirs != c.want {
				t.Errorf("%d attempts, v5 %d; want %d", ours, theirs, c.want)
			}
			if (ourErr == nil) != (theirErr == nil) {
				t.Errorf("error %v, v5's %v", ourErr, theirErr)
			}
			for _, target := range []error{errFlaky, context.Canceled} {
				if errors.Is(theirErr, target) && !errors.Is(ourErr, target) {
					t.Errorf("v5's error %v matches %v; %v does not", theirErr, target, ourErr)
				}
			}
		})
	}
}

// A named wait follows v5's order: the attempt budget and the BackOff are
// asked first, so a BackOff that stops ends the run even when the error
// names a wait; then the named wait replaces the BackOff's.
func TestCenkaltiNamedWait(t *testing.T) {
	errFlaky := errors.New("flaky")
	ours, _ := countingRun(func(op func() (int, error)) error {
		_, err := backoff.Retry(op, backoff.WithBackOff(&backoff.StopBackOff{}), backoff.WithMaxTries(5))
		return err
	}, func(int) error { return backoff.RetryAfter(0, errFlaky) })
	theirs, _ := countingRun(func(op func() (int, error)) error {
		_, err := cenkaltiv5.Retry(context.Background(), op, cenkaltiv5.WithBackOff(&cenkaltiv5.StopBackOff{}), cenkaltiv5.WithMaxTries(5))
		return err
	}, func(int) error { return cenkaltiv5.RetryAfter(0) })
	if ours != 1 || theirs != 1 {
		t.Errorf("a StopBackOff and a named wait: %d attempts, v5 %d; want 1", ours, theirs)
	}
	// A named wait of zero replaces an hour's wait, in both.
	slow := backoff.NewConstantBackOff(time.Hour)
	ours, ourErr := countingRun(func(op func() (int, error)) error {
		_, err := backoff.Retry(op, backoff.WithBackOff(slow), backoff.WithMaxTries(3))
		return err
	}, func(int) error { return backoff.RetryAfter(0, errFlaky) })
	theirs, theirErr := countingRun(func(op func() (int, error)) error {
		_, err := cenkaltiv5.Retry(context.Background(), op, cenkaltiv5.WithBackOff(cenkaltiv5.NewConstantBackOff(time.Hour)), cenkaltiv5.WithMaxTries(3))
		return err
	}, func(int) error { return cenkaltiv5.RetryAfter(0) })
	if ours != 3 || theirs != 3 || ourErr == nil || theirErr == nil {
		t.Errorf("named waits of zero: %d attempts (%v), v5 %d (%v); want 3, failing", ours, ourErr, theirs, theirErr)
	}
}

// What differs from v5 without a compile error, as docs/cenkalti.md ("Coming
// from cenkalti/backoff") lists it: each difference, shown side by side.
func TestCenkaltiSilentDifferences(t *testing.T) {
	errFlaky := errors.New("flaky")
	_, ourErr := backoff.Retry(func() (int, error) { return 0, errFlaky }, backoff.WithMaxTries(1))
	_, theirErr := cenkaltiv5.Retry(context.Background(), func() (int, error) { return 0, errFlaky }, cenkaltiv5.WithMaxTries(1))
	if theirErr != errFlaky || ourErr == errFlaky || !errors.Is(ourErr, errFlaky) {
		t.Errorf("errors: ours %#v, v5's %#v; want v5's the operation's own, ours an *Error matching it", ourErr, theirErr)
	}
	// A named wait past the bound: v5 sleeps it, the driver stops at once.
	n := 0
	_, err := backoff.Retry(func() (int, error) { n++; return 0, backoff.RetryAfter(time.Hour, errFlaky) })
	if !errors.Is(err, backoff.ErrRetryAfterTooLong) || n != 1 {
		t.Errorf("an hour's named wait: %v after %d attempts, want ErrRetryAfterTooLong after 1", err, n)
	}
	// A zero Multiplier or MaxInterval: here it takes its default; v5
	// keeps every wait at the InitialInterval.
	ours, theirs := backoff.NewExponentialBackOff(), cenkaltiv5.NewExponentialBackOff()
	ours.Multiplier, ours.RandomizationFactor = 0, 0
	theirs.Multiplier, theirs.RandomizationFactor = 0, 0
	got, want := waits(3, ours.NextBackOff), waits(3, theirs.NextBackOff)
	if want[2] != 500*time.Millisecond || got[2] != 1125*time.Millisecond {
		t.Errorf("zero Multiplier: waits %v, v5's %v; want v5's all 500ms, ours ×1.5", got, want)
	}
	ours, theirs = backoff.NewExponentialBackOff(), cenkaltiv5.NewExponentialBackOff()
	ours.MaxInterval, ours.RandomizationFactor = 0, 0
	theirs.MaxInterval, theirs.RandomizationFactor = 0, 0
	got, want = waits(3, ours.NextBackOff), waits(3, theirs.NextBackOff)
	if want[2] != 500*time.Millisecond || got[2] != 1125*time.Millisecond {
		t.Errorf("zero MaxInterval: waits %v, v5's %v; want v5's all 500ms, ours ×1.5", got, want)
	}
	// Fields that make no sense: v5 computes with them, the driver's
	// ExponentialBackOff returns Stop.
	ours, theirs = backoff.NewExponentialBackOff(), cenkaltiv5.NewExponentialBackOff()
	ours.InitialInterval, theirs.InitialInterval = -time.Second, -time.Second
	if ours.NextBackOff() != backoff.Stop || theirs.NextBackOff() == cenkaltiv5.Stop {
		t.Error("a negative InitialInterval: want Stop here, a wait from v5")
	}
}
