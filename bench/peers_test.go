package bench

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	retryv4 "github.com/avast/retry-go/v4"
	retryv5 "github.com/avast/retry-go/v5"
	cenkaltiv5 "github.com/cenkalti/backoff/v5"
	cenkaltiv7 "github.com/cenkalti/backoff/v7"
	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/policy"
	sethretry "github.com/sethvargo/go-retry"
)

// The attempt budget every library is given: 5 attempts, that is 4 retries.
const maxAttempts = 5

// errSentinel is the preallocated error the failing operations return, so
// that no benchmark measures the cost of building an error.
var errSentinel = errors.New("bench: transient failure")

// sethRetryable is errSentinel marked retryable for sethvargo/go-retry,
// which retries only marked errors. It is built once, as errSentinel is.
var sethRetryable = sethretry.RetryableError(errSentinel)

func isTransient(err error) bool { return errors.Is(err, errSentinel) }

// succeed is the operation of the success scenarios.
func succeed() (int, error) { return 1, nil }

// operation is what every library runs.
type operation = func() (int, error)

// call runs op once through one library's retry loop and returns its
// result. The ctx is the caller's; libraries that bind a context when their
// retrier is built (avast/retry-go v5, failsafe-go) use a retrier built once
// for context.Background, as their documentation suggests for reuse.
type call func(ctx context.Context, op operation) (int, error)

// lib is one row of a comparison: a library, or a bare baseline.
type lib struct {
	name string
	// ours is true for herdsafe/backoff rows, which the ratio table puts
	// against the peers.
	ours bool
	// baseline is true for the bare rows, which are not peers.
	baseline bool
	call     call
}

// keep adapts op to the function without a result that a Run or DoErr
// method takes: the result goes to *v.
func keep(v *int, op operation) func(context.Context) error {
	return func(context.Context) (err error) {
		*v, err = op()
		return err
	}
}

// failsafeRow is the row of failsafe-go's executor e, called with Get.
func failsafeRow(e failsafe.Executor[int]) lib {
	return lib{name: "failsafe", call: func(_ context.Context, op operation) (int, error) { return e.Get(op) }}
}

// sethOp adapts op to sethvargo/go-retry, which needs retryable errors
// marked; the sentinel keeps its preallocated mark.
func sethOp(op operation) sethretry.RetryFuncValue[int] {
	return func(context.Context) (int, error) {
		v, err := op()
		switch {
		case err == nil:
			return v, nil
		case err == errSentinel:
			return v, sethRetryable
		default:
			return v, sethretry.RetryableError(err)
		}
	}
}

// Built once and reused: both libraries document their retriers as safe to
// share between calls and goroutines, and so does herdsafe its Policy and
// its Retrier.
var (
	// herdsafePolicy is a retry stage alone, with its defaults but the
	// attempt budget (full jitter from 100 ms; see policy.Retry).
	herdsafePolicy = policy.New(policy.Retry(backoff.WithMaxTries(maxAttempts)))
	// herdsafeRetrier is the driver with its options built once: the
	// BackOff of RetryCtx (NewExponentialBackOff), 5 attempts, and no time
	// budget, as the retriers it is compared with keep none.
	herdsafeRetrier = backoff.NewRetrier(backoff.WithMaxTries(maxAttempts), backoff.WithMaxElapsedTime(0))

	avastV5Expo = retryv5.NewWithData[int](retryv5.Attempts(maxAttempts))
	avastV5Zero = retryv5.NewWithData[int](retryv5.Attempts(maxAttempts),
		retryv5.Delay(0), retryv5.DelayType(retryv5.FixedDelay))

	failsafeExpo = failsafe.With[int](retrypolicy.NewBuilder[int]().
			WithMaxAttempts(maxAttempts).
			WithBackoff(500*time.Millisecond, 60*time.Second).
			WithJitterFactor(0.5).
			Build())
	failsafeZero = failsafe.With[int](retrypolicy.NewBuilder[int]().
			WithMaxAttempts(maxAttempts).
			Build())
)

// expoLibs run op with each library's recommended exponential backoff and
// 5 attempts: the configuration of the success scenarios.
var expoLibs = []lib{
	{name: "bare-direct", baseline: true, call: func(_ context.Context, op operation) (int, error) {
		return op()
	}},
	{name: "bare-loop", baseline: true, call: func(ctx context.Context, op operation) (int, error) {
		return handLoop(ctx, op, 500*time.Millisecond)
	}},
	{name: "herdsafe", ours: true, call: func(ctx context.Context, op operation) (int, error) {
		return backoff.RetryCtx(ctx, op, backoff.WithMaxTries(maxAttempts))
	}},
	{name: "herdsafe-nooptions", ours: true, call: func(ctx context.Context, op operation) (int, error) {
		return backoff.RetryCtx(ctx, op)
	}},
	{name: "herdsafe-classifier", ours: true, call: func(ctx context.Context, op operation) (int, error) {
		return backoff.RetryCtx(ctx, op, backoff.WithMaxTries(maxAttempts), backoff.WithRetryable(isTransient))
	}},
	{name: "herdsafe-policy", ours: true, call: func(ctx context.Context, op operation) (int, error) {
		return policy.Do(ctx, herdsafePolicy, func(context.Context) (int, error) { return op() })
	}},
	{name: "herdsafe-retrier", ours: true, call: func(ctx context.Context, op operation) (int, error) {
		// DoErr takes a function without a result: the closure keeps it.
		var v int
		err := herdsafeRetrier.DoErr(ctx, keep(&v, op))
		return v, err
	}},
	{name: "herdsafe-fresh", ours: true, call: func(ctx context.Context, op operation) (int, error) {
		// As a user of cenkalti/backoff writes it: a new BackOff per call,
		// its first interval set, and the default time budget.
		b := backoff.NewExponentialBackOff()
		b.InitialInterval = 100 * time.Millisecond
		return backoff.RetryCtx(ctx, op, backoff.WithBackOff(b), backoff.WithMaxTries(maxAttempts))
	}},
	{name: "cenkalti-v5", call: func(ctx context.Context, op operation) (int, error) {
		return cenkaltiv5.Retry(ctx, op, cenkaltiv5.WithMaxTries(maxAttempts))
	}},
	{name: "cenkalti-v7", call: func(ctx context.Context, op operation) (int, error) {
		return cenkaltiv7.Retry(ctx, op, cenkaltiv7.WithMaxTries(maxAttempts))
	}},
	{name: "sethvargo", call: func(ctx context.Context, op operation) (int, error) {
		b := sethretry.WithMaxRetries(maxAttempts-1, sethretry.WithJitterPercent(50, sethretry.NewExponential(500*time.Millisecond)))
		return sethretry.DoValue(ctx, b, sethOp(op))
	}},
	{name: "avast-v4", call: func(ctx context.Context, op operation) (int, error) {
		return retryv4.DoWithData(op, retryv4.Attempts(maxAttempts), retryv4.Context(ctx))
	}},
	{name: "avast-v5", call: func(_ context.Context, op operation) (int, error) {
		return avastV5Expo.Do(op)
	}},
	failsafeRow(failsafeExpo),
}

// zeroLibs run op with zero delays between attempts and 5 attempts: the
// configuration of ThreeAttemptsZeroDelay, which measures the machinery
// alone.
var zeroLibs = []lib{
	{name: "bare-loop", baseline: true, call: func(ctx context.Context, op operation) (int, error) {
		return handLoop(ctx, op, 0)
	}},
	{name: "herdsafe", ours: true, call: func(ctx context.Context, op operation) (int, error) {
		return backoff.RetryCtx(ctx, op, backoff.WithMaxTries(maxAttempts), backoff.WithBackOff(&backoff.ZeroBackOff{}))
	}},
	{name: "herdsafe-classifier", ours: true, call: func(ctx context.Context, op operation) (int, error) {
		return backoff.RetryCtx(ctx, op, backoff.WithMaxTries(maxAttempts), backoff.WithBackOff(&backoff.ZeroBackOff{}),
			backoff.WithRetryable(isTransient))
	}},
	{name: "cenkalti-v5", call: func(ctx context.Context, op operation) (int, error) {
		return cenkaltiv5.Retry(ctx, op, cenkaltiv5.WithMaxTries(maxAttempts), cenkaltiv5.WithBackOff(&cenkaltiv5.ZeroBackOff{}))
	}},
	{name: "cenkalti-v7", call: func(ctx context.Context, op operation) (int, error) {
		return cenkaltiv7.Retry(ctx, op, cenkaltiv7.WithMaxTries(maxAttempts), cenkaltiv7.WithBackOff(&cenkaltiv7.ZeroBackOff{}))
	}},
	{name: "sethvargo", call: func(ctx context.Context, op operation) (int, error) {
		// NewConstant refuses 0, so a zero policy is a BackoffFunc.
		b := sethretry.WithMaxRetries(maxAttempts-1, sethretry.BackoffFunc(zeroDelay))
		return sethretry.DoValue(ctx, b, sethOp(op))
	}},
	{name: "avast-v4", call: func(ctx context.Context, op operation) (int, error) {
		return retryv4.DoWithData(op, retryv4.Attempts(maxAttempts), retryv4.Context(ctx),
			retryv4.Delay(0), retryv4.DelayType(retryv4.FixedDelay))
	}},
	{name: "avast-v5", call: func(_ context.Context, op operation) (int, error) {
		return avastV5Zero.Do(op)
	}},
	failsafeRow(failsafeZero),
}

func zeroDelay() (time.Duration, bool) { return 0, false }

// handLoop is the loop a careful engineer writes without a library: up to
// 5 attempts, exponential waits from base with ±50% jitter, no wait (and no
// timer) when the wait is zero, and the context ends the wait.
func handLoop(ctx context.Context, op operation, base time.Duration) (int, error) {
	var (
		v   int
		err error
	)
	for i := range maxAttempts {
		if v, err = op(); err == nil {
			return v, nil
		}
		if i == maxAttempts-1 {
			break
		}
		d := base << i
		if d <= 0 {
			continue
		}
		d = d/2 + rand.N(d)
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return v, ctx.Err()
		}
	}
	return v, err
}

// flaky fails twice with errSentinel, then succeeds, and again on the next
// three calls: each retry run through it takes exactly three attempts.
type flaky struct{ calls int }

func (f *flaky) op() (int, error) {
	f.calls++
	if f.calls%3 != 0 {
		return 0, errSentinel
	}
	return 1, nil
}
