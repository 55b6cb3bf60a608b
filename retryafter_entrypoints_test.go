package backoff

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// One rule for a named wait, at every entry point: the caller's own error
// names it; CancelAllRetries ends the run; the BackOff is asked first; a
// wait past WithMaxRetryAfter is not slept.
func TestNamedWaitAtEveryEntryPoint(t *testing.T) {
	s := time.Second
	cases := []struct {
		name     string
		err      error
		opts     []RetryOption
		cause    error
		attempts int
		took     time.Duration
	}{
		{"the caller's own error", namedWait{d: 7 * s}, nil, ErrExhausted, 2, 7 * s},
		{"CancelAllRetries", namedWait{d: s, cancel: true}, nil, ErrRetriesCanceled, 1, 0},
		{"StopBackOff first", RetryAfter(s, errA), []RetryOption{WithBackOff(&StopBackOff{})}, ErrExhausted, 1, 0},
		{"past the default bound", RetryAfter(10*time.Minute, errA), nil, ErrRetryAfterTooLong, 1, 0},
		{"past a bound of one's own", RetryAfter(2*s, errA), []RetryOption{WithMaxRetryAfter(s)}, ErrRetryAfterTooLong, 1, 0},
		{"within a bound of one's own", RetryAfter(2*time.Minute, errA), []RetryOption{WithMaxRetryAfter(time.Hour)}, ErrExhausted, 2, 2 * time.Minute},
	}
	for _, c := range cases {
		for _, e := range specEntries {
			t.Run(c.name+"/"+e.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					n, start := 0, time.Now()
					opts := append([]RetryOption{WithMaxTries(2), WithBackOff(NewConstantBackOff(s))}, c.opts...)
					_, err := e.run(context.Background(), func() (int, error) { n++; return 0, c.err }, opts...)
					re := specAsError(t, err)
					if !errors.Is(re.Cause, c.cause) || n != c.attempts || time.Since(start) != c.took {
						t.Errorf("%+v after %d attempts and %v; want %v after %d and %v", re, n, time.Since(start), c.cause, c.attempts, c.took)
					}
				})
			})
		}
	}
}

// A done WithContext ends the run with its cause, a named wait or not.
func TestNamedWaitWithADoneWithContext(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("shutting down")
	cancel(cause)
	for _, e := range specEntries {
		n := 0
		_, err := e.run(context.Background(), func() (int, error) { n++; return 0, RetryAfter(time.Second, errA) },
			WithBackOff(WithContext(ctx, NewConstantBackOff(time.Second))))
		if re := specAsError(t, err); re.Cause != cause || n != 1 {
			t.Errorf("%s: %+v after %d attempts, want the context's cause after 1", e.name, re, n)
		}
	}
}

// WithMaxRetryAfter refuses a negative bound.
func TestWithMaxRetryAfterRefusesANegativeBound(t *testing.T) {
	n := 0
	_, err := Retry(func() (int, error) { n++; return 0, nil }, WithMaxRetryAfter(-time.Second))
	if re := specAsError(t, err); !errors.Is(re.Cause, ErrInvalidConfiguration) || n != 0 {
		t.Errorf("%v after %d attempts, want ErrInvalidConfiguration before any", err, n)
	}
}

// A Retrier, safe for concurrent use, refuses a BackOff it cannot clone,
// instead of sharing it between calls (which -race reports).
func TestRetrierRefusesABackOffItCannotClone(t *testing.T) {
	r := NewRetrier(WithBackOff(noClone{NewConstantBackOff(0)}), WithMaxTries(3))
	if err := r.Validate(); !errors.Is(err, ErrInvalidConfiguration) {
		t.Fatalf("Validate() = %v, want ErrInvalidConfiguration", err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			calls := 0
			err := r.DoErr(context.Background(), func(context.Context) error { calls++; return errA })
			if !errors.Is(err, ErrInvalidConfiguration) || calls != 0 {
				t.Errorf("DoErr: %v after %d calls, want ErrInvalidConfiguration before any", err, calls)
			}
		})
	}
	wg.Wait()
	if l := r.Loop(); l.Wait(context.Background()) || !errors.Is(l.Err(), ErrInvalidConfiguration) {
		t.Errorf("the Loop of such a Retrier: Err %v, want ErrInvalidConfiguration", l.Err())
	}
}

// WithoutWaits reaches a Loop too.
func TestLoopWithoutWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := WithoutWaits(context.Background())
		l := NewRetrier(WithBackOff(NewConstantBackOff(time.Hour)), WithMaxTries(3)).Loop()
		start, n := time.Now(), 0
		for l.Wait(ctx) {
			n++
		}
		if n != 3 || time.Since(start) != 0 || !errors.Is(l.Err(), ErrExhausted) {
			t.Errorf("%d attempts in %v, Err %v; want 3 in no time, ErrExhausted", n, time.Since(start), l.Err())
		}
	})
}
