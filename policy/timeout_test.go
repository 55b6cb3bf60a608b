package policy_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	"github.com/herdsafe/backoff/policy"
)

// slow waits an hour for its context; the tests run it in virtual time.
func slow(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Hour):
		return nil
	}
}

// A timeout stage inside the retry stage bounds each attempt, and an
// attempt that runs out of time is retried; outside, it bounds the whole
// loop, which then stops with its cause. In a synctest bubble's virtual
// time.
func TestTimeoutStage(t *testing.T) {
	t.Run("inside the retry stage", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			calls := 0
			err := policy.New(policy.Retry(zero()), policy.Timeout(time.Second)).DoErr(context.Background(),
				func(ctx context.Context) error { calls++; return slow(ctx) })
			checkStop(t, err, backoff.ErrExhausted, context.DeadlineExceeded)
			if calls != 3 || time.Since(start) != 3*time.Second {
				t.Errorf("%d calls in %v, want 3 in 3s", calls, time.Since(start))
			}
		})
	})
	t.Run("outside the retry stage", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			calls := 0
			err := policy.New(policy.Timeout(2500*time.Millisecond),
				policy.Retry(backoff.WithBackOff(backoff.NewConstantBackOff(time.Second)), backoff.WithMaxTries(0))).
				DoErr(context.Background(), func(ctx context.Context) error { calls++; return io.EOF })
			// The third wait would overrun the deadline: it is not started.
			checkStop(t, err, context.DeadlineExceeded, io.EOF)
			if calls != 3 || time.Since(start) != 2*time.Second {
				t.Errorf("%d calls in %v, want 3 calls in 2s", calls, time.Since(start))
			}
		})
	})
	t.Run("outside, the attempt in flight ends with it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			calls := 0
			err := policy.New(policy.Timeout(1500*time.Millisecond), policy.Retry(backoff.WithBackOff(backoff.NewConstantBackOff(time.Second)))).
				DoErr(context.Background(), func(ctx context.Context) error {
					calls++
					if calls == 2 {
						return slow(ctx)
					}
					return io.EOF
				})
			// The attempt the deadline cut short leaves the real error
			// before it as LastErr.
			checkStop(t, err, context.DeadlineExceeded, io.EOF)
			if calls != 2 || time.Since(start) != 1500*time.Millisecond {
				t.Errorf("%d calls in %v, want 2 in 1.5s", calls, time.Since(start))
			}
		})
	})
	t.Run("a function that ignores its context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			v, err := policy.Do(context.Background(), policy.New(policy.Timeout(time.Millisecond)), func(context.Context) (int, error) {
				<-time.After(time.Second) // ignores its context
				return 4, nil
			})
			if v != 4 || err != nil || time.Since(start) != time.Second {
				t.Errorf("(%d, %v) after %v, want (4, nil) after 1s: the stage returns when the function does", v, err, time.Since(start))
			}
		})
	})
	t.Run("the deadline is the earlier", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			want, _ := ctx.Deadline()
			var got time.Time
			_ = policy.New(policy.Timeout(time.Hour)).DoErr(ctx, func(ctx context.Context) error {
				got, _ = ctx.Deadline()
				return nil
			})
			if !got.Equal(want) {
				t.Errorf("deadline %v, want the caller's %v", got, want)
			}
		})
	})
}

// A timeout stage inside a retry stage gives each attempt its own
// deadline (an attempt that times out is an ordinary, retryable failure):
// what WithAttemptTimeout did.
func TestTimeoutPerAttempt(t *testing.T) {
	t.Run("a timed-out attempt is retried", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			var deadlines []time.Duration
			var n spectest.Notify
			p := policy.New(
				policy.Retry(backoff.WithBackOff(backoff.NewConstantBackOff(time.Second)), backoff.WithNotify(n.Notify)),
				policy.Timeout(5*time.Second),
			)
			v, err := policy.Do(context.Background(), p, func(ctx context.Context) (string, error) {
				d, ok := ctx.Deadline()
				if !ok {
					return "", errors.New("the attempt has no deadline")
				}
				deadlines = append(deadlines, d.Sub(start))
				if len(deadlines) == 1 {
					<-ctx.Done() // a hung attempt
					return "", ctx.Err()
				}
				return "done", nil
			})
			if err != nil || v != "done" {
				t.Fatalf("got (%q, %v), want success at the second attempt", v, err)
			}
			if want := []time.Duration{5 * time.Second, 11 * time.Second}; !slices.Equal(deadlines, want) {
				t.Errorf("attempt deadlines at %v, want %v: each attempt's own", deadlines, want)
			}
			if len(n.Errs) != 1 || !errors.Is(n.Errs[0], context.DeadlineExceeded) {
				t.Errorf("Notify got %v, want the attempt's DeadlineExceeded", n.Errs)
			}
			if got := time.Since(start); got != 6*time.Second {
				t.Errorf("took %v, want 6s: 5s attempt, 1s wait", got)
			}
		})
	})
	t.Run("every attempt times out", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var calls int
			_, err := policy.Do(context.Background(), policy.New(policy.Retry(zero()), policy.Timeout(time.Second)),
				func(ctx context.Context) (int, error) {
					calls++
					<-ctx.Done()
					return calls, ctx.Err()
				})
			re := checkStop(t, err, backoff.ErrExhausted, context.DeadlineExceeded)
			if calls != 3 || re.Attempts != 3 {
				t.Errorf("ran %d times, Attempts %d; want 3", calls, re.Attempts)
			}
		})
	})
	t.Run("the caller's deadline still decides", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
			defer cancel()
			var calls int
			_, err := policy.Do(ctx, policy.New(policy.Retry(zero(), backoff.WithMaxTries(0)), policy.Timeout(time.Second)),
				func(ctx context.Context) (int, error) {
					calls++
					<-ctx.Done()
					return calls, fmt.Errorf("attempt %d: %w", calls, ctx.Err())
				})
			// Two attempts time out on their own; a third is not started,
			// as the 0.5s left could not hold the 1s the last one took.
			re := asError(t, err)
			if re.Cause != context.DeadlineExceeded || calls != 2 {
				t.Errorf("Cause %v after %d attempts, want the caller's deadline after 2", re.Cause, calls)
			}
			if re.LastErr == nil || re.LastErr.Error() != "attempt 2: context deadline exceeded" {
				t.Errorf("LastErr = %v, want the second attempt's error", re.LastErr)
			}
		})
	})
}
