package mydriver

// The driver's rules, run against a copy of retry.go and options.go made
// outside the module, as a user would make it: from the marker below on,
// this file is the package's rules_test.go (TestCopyRulesMatch there keeps
// the two the same). .ci/run runs it:
//
//	(cd ../shared/tools/copytest && go run . -test "$root/testdata/copytest/rules_test.go" "$root" retry.go options.go)

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
)

// What the tests use of the package, besides the copy.
var (
	NewConstantBackOff   = backoff.NewConstantBackOff
	WithContext          = backoff.WithContext
	Permanent            = backoff.Permanent
	RetryAfter           = backoff.RetryAfter
	ErrExhausted         = backoff.ErrExhausted
	ErrPermanent         = backoff.ErrPermanent
	ErrRetriesCanceled   = backoff.ErrRetriesCanceled
	ErrRetryAfterTooLong = backoff.ErrRetryAfterTooLong
)

type (
	Error       = backoff.Error
	ZeroBackOff = backoff.ZeroBackOff
	StopBackOff = backoff.StopBackOff
)

const DefaultMaxRetryAfter = backoff.DefaultMaxRetryAfter

// The rules.

var errA, errB = errors.New("a"), errors.New("b")

// namedWait is a caller's own error that names a wait without importing
// the package, and may cancel every retry.
type namedWait struct {
	d      time.Duration
	cancel bool
}

func (e namedWait) Error() string             { return "named wait" }
func (e namedWait) RetryAfter() time.Duration { return e.d }
func (e namedWait) CancelAllRetries() bool    { return e.cancel }

// asError returns err's *Error, failing the test if it is none.
func asError(t *testing.T, err error) *Error {
	t.Helper()
	var re *Error
	if !errors.As(err, &re) {
		t.Fatalf("got %v, want an *Error", err)
	}
	return re
}

// deadlineOnly is a context whose deadline has passed but which is not
// yet marked done, as every context with a deadline is for a moment.
type deadlineOnly struct {
	context.Context
	at time.Time
}

func (c deadlineOnly) Deadline() (time.Time, bool) { return c.at, true }

func TestRulesWaitsAndAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n, start := 0, time.Now()
		got, err := Retry(func() (int, error) {
			if n++; n < 3 {
				return n, errA
			}
			return n, nil
		}, WithBackOff(NewConstantBackOff(time.Second)))
		if err != nil || got != 3 || time.Since(start) != 2*time.Second {
			t.Errorf("got %d, %v after %v; want 3, nil after 2s", got, err, time.Since(start))
		}
	})
}

func TestRulesCauses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := 0
		_, err := Retry(func() (int, error) { n++; return n, errA }, WithBackOff(&ZeroBackOff{}), WithMaxTries(3))
		if re := asError(t, err); re.Cause != ErrExhausted || re.LastErr != errA || re.Attempts != 3 {
			t.Errorf("WithMaxTries(3): %+v, want ErrExhausted after 3 attempts, LastErr a", re)
		}
		_, err = Retry(func() (int, error) { return 0, Permanent(errB) })
		if re := asError(t, err); re.Cause != ErrPermanent || re.LastErr != errB || re.Attempts != 1 {
			t.Errorf("Permanent: %+v, want ErrPermanent after 1 attempt, LastErr b", re)
		}
	})
}

// A caller's own error names the wait; one that cancels all retries ends
// the run.
func TestRulesNamedWaitOfTheCallersOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n, start := 0, time.Now()
		_, err := Retry(func() (int, error) {
			if n++; n == 1 {
				return 0, namedWait{d: 7 * time.Second}
			}
			return 0, nil
		}, WithBackOff(NewConstantBackOff(time.Second)))
		if err != nil || time.Since(start) != 7*time.Second {
			t.Errorf("got %v after %v, want success after the 7s named", err, time.Since(start))
		}
		n = 0
		_, err = Retry(func() (int, error) { n++; return 0, namedWait{d: time.Second, cancel: true} })
		if re := asError(t, err); re.Cause != ErrRetriesCanceled || n != 1 {
			t.Errorf("CancelAllRetries: %+v after %d attempts, want ErrRetriesCanceled after 1", re, n)
		}
	})
}

// The BackOff is asked before the named wait replaces its wait, as
// cenkalti/backoff v5 does: its Stop, and a done WithContext, end the run.
func TestRulesTheBackOffIsAskedFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := 0
		op := func() (int, error) { n++; return 0, RetryAfter(time.Second, errA) }
		_, err := Retry(op, WithBackOff(&StopBackOff{}), WithMaxTries(5))
		if re := asError(t, err); re.Cause != ErrExhausted || n != 1 || re.LastErr != errA {
			t.Errorf("StopBackOff: %+v after %d attempts, want ErrExhausted after 1", re, n)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		n = 0
		_, err = Retry(op, WithBackOff(WithContext(ctx, NewConstantBackOff(time.Second))))
		if re := asError(t, err); !errors.Is(re.Cause, context.Canceled) || n != 1 {
			t.Errorf("a done WithContext: %+v after %d attempts, want context.Canceled after 1", re, n)
		}
	})
}

// A named wait past WithMaxRetryAfter is not slept; the bound is on by
// default.
func TestRulesNamedWaitBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, opts := range [][]RetryOption{nil, {WithMaxRetryAfter(time.Minute)}} {
			start, n := time.Now(), 0
			_, err := RetryCtx(context.Background(), func() (int, error) {
				n++
				return 0, RetryAfter(10*time.Minute, errA)
			}, opts...)
			re := asError(t, err)
			if !errors.Is(re.Cause, ErrRetryAfterTooLong) || re.LastErr != errA || n != 1 || time.Since(start) != 0 {
				t.Errorf("%d options: %+v after %d attempts and %v, want ErrRetryAfterTooLong at once", len(opts), re, n, time.Since(start))
			}
		}
		start := time.Now()
		n := 0
		_, err := Retry(func() (int, error) {
			if n++; n == 1 {
				return 0, RetryAfter(DefaultMaxRetryAfter, errA)
			}
			return 0, nil
		})
		if err != nil || time.Since(start) != DefaultMaxRetryAfter {
			t.Errorf("a wait at the bound: %v after %v, want success after it", err, time.Since(start))
		}
	})
}

// Seed 000's deadline rule: no wait that leaves less time than the last
// attempt took, and LastErr the last real error.
func TestRulesDeadlineLeavesRoomForAnAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		start, n := time.Now(), 0
		_, err := RetryCtx(ctx, func() (int, error) {
			n++
			time.Sleep(2 * time.Second) // each attempt takes 2s, then fails
			return n, errA
		}, WithBackOff(NewConstantBackOff(time.Second)))
		// Attempts end at 2s, 5s and 8s; after the third, a 1s wait would
		// leave 1s, less than the 2s an attempt takes.
		re := asError(t, err)
		if re.Cause != context.DeadlineExceeded || re.LastErr != errA || n != 3 || time.Since(start) != 8*time.Second {
			t.Errorf("%+v after %d attempts and %v, want DeadlineExceeded, LastErr a, after 3 and 8s", re, n, time.Since(start))
		}
	})
	synctest.Test(t, func(t *testing.T) {
		// A wait that ends exactly at the deadline is not started.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		start := time.Now()
		_, err := RetryCtx(ctx, func() (int, error) { return 0, errA }, WithBackOff(NewConstantBackOff(5*time.Second)))
		if re := asError(t, err); re.Cause != context.DeadlineExceeded || time.Since(start) != 0 {
			t.Errorf("%+v after %v, want DeadlineExceeded at once", re, time.Since(start))
		}
	})
}

// No attempt is started once the deadline has passed, even after a zero
// wait and before the context is marked done.
func TestRulesNoAttemptPastTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := deadlineOnly{context.Background(), time.Now().Add(time.Second)}
		n := 0
		_, err := RetryCtx(ctx, func() (int, error) {
			n++
			time.Sleep(2 * time.Second)
			return 0, errA
		}, WithBackOff(&ZeroBackOff{}))
		if re := asError(t, err); re.Cause != context.DeadlineExceeded || re.LastErr != errA || n != 1 {
			t.Errorf("%+v after %d attempts, want DeadlineExceeded, LastErr a, after 1", re, n)
		}
	})
}

// An attempt the caller's deadline cuts short leaves the real error before
// it as LastErr.
func TestRulesLastRealErrorSurvivesTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		n := 0
		_, err := RetryCtx(ctx, func() (int, error) {
			if n++; n == 1 {
				return 0, errA
			}
			<-ctx.Done()
			return 0, ctx.Err()
		}, WithBackOff(NewConstantBackOff(time.Second)))
		if re := asError(t, err); re.Cause != context.DeadlineExceeded || re.LastErr != errA || n != 2 {
			t.Errorf("%+v after %d attempts, want DeadlineExceeded, LastErr a, after 2", re, n)
		}
	})
}

// WithoutWaits makes every wait zero; attempts and limits still run.
func TestRulesWithoutWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start, n := time.Now(), 0
		_, err := RetryCtx(WithoutWaits(context.Background()), func() (int, error) {
			n++
			return 0, errA
		}, WithBackOff(NewConstantBackOff(time.Hour)), WithMaxTries(4))
		if re := asError(t, err); re.Cause != ErrExhausted || n != 4 || time.Since(start) != 0 {
			t.Errorf("%+v after %d attempts and %v, want ErrExhausted after 4 and no time", re, n, time.Since(start))
		}
		_, err = RetryCtx(WithoutWaits(context.Background()), func() (int, error) { return 0, RetryAfter(time.Hour, errA) })
		if re := asError(t, err); !errors.Is(re.Cause, ErrRetryAfterTooLong) {
			t.Errorf("WithoutWaits lifted the bound on named waits: %+v", re)
		}
	})
}
