package chaos_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/chaos"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
)

// The tests of an Injector in a policy: the policy package sits above the
// guards, so they are external tests.

var errInjected = errors.New("synthetic failure")

// Retry (3 tries, no wait) around an Injector that fails every call: three
// attempts, all injected, the function never called, and the call's error
// says the retries ran out on the injected error.
func TestInjectedErrorIsRetried(t *testing.T) {
	in := chaos.New(chaos.Config{ErrorProbability: 1, InjectedError: errInjected})
	p := policy.New(
		policy.Retry(backoff.WithMaxTries(3), backoff.WithBackOff(&backoff.ZeroBackOff{})),
		policy.Guard(in),
	)
	calls := 0
	_, err := policy.Do(context.Background(), p, func(context.Context) (int, error) { calls++; return 1, nil })
	var e *backoff.Error
	if !errors.As(err, &e) || e.Cause != backoff.ErrExhausted || e.LastErr != errInjected || e.Attempts != 3 {
		t.Fatalf("err = %+v, want Cause ErrExhausted, LastErr the injected error, 3 attempts", err)
	}
	if calls != 0 {
		t.Errorf("the function was called %d times, want 0", calls)
	}
	if got := in.Stats(); got != (chaos.Stats{Calls: 3, InjectedErrors: 3}) {
		t.Errorf("Stats() = %+v, want 3 calls, 3 injected errors", got)
	}
	if guard.IsRefusal(err) || errors.Is(err, backoff.ErrRefused) {
		t.Error("an injected failure is reported as a refusal")
	}
}

// Through a Policy, the caller's cancellation during an injected delay
// ends the call with the context's cause and the function is not called;
// an attempt timeout during one is a slow attempt, retried.
func TestLatencyInPolicy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// On the time package's clock, virtual in the bubble, as the
		// timeout stage's is.
		in := chaos.New(chaos.Config{LatencyProbability: 1, LatencyDuration: time.Hour})
		calls := 0
		fn := func(context.Context) error { calls++; return nil }

		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- policy.New(policy.Retry(), policy.Guard(in)).DoErr(ctx, fn)
		}()
		synctest.Wait()
		cancel()
		var e *backoff.Error
		if err := <-done; !errors.As(err, &e) || e.Cause != context.Canceled || calls != 0 {
			t.Errorf("cancelled: %+v after %d calls, want Cause context.Canceled and no call", err, calls)
		}

		p := policy.New(
			policy.Retry(backoff.WithMaxTries(2), backoff.WithBackOff(&backoff.ZeroBackOff{})),
			policy.Timeout(time.Second),
			policy.Guard(in),
		)
		start := time.Now()
		err := p.DoErr(context.Background(), fn)
		if !errors.As(err, &e) || e.Cause != backoff.ErrExhausted || !errors.Is(e.LastErr, context.DeadlineExceeded) || e.Attempts != 2 || calls != 0 {
			t.Errorf("attempt timeouts: %+v after %d calls, want 2 attempts, Cause ErrExhausted, LastErr DeadlineExceeded, no call", err, calls)
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Errorf("the attempts took %v, want 2s: each cut short by its timeout", d)
		}
	})
}

// A Policy with an invalid Injector fails before running anything.
func TestPolicyValidatesTheInjector(t *testing.T) {
	for name, in := range map[string]*chaos.Injector{
		"invalid Config": chaos.New(chaos.Config{ErrorProbability: 0.5}), // no InjectedError
		"zero":           {},
	} {
		called := false
		err := policy.New(policy.Guard(in)).DoErr(context.Background(), func(context.Context) error { called = true; return nil })
		var e *backoff.Error
		if !errors.As(err, &e) || !errors.Is(e.Cause, backoff.ErrInvalidConfiguration) || called {
			t.Errorf("%s: %v (fn called: %v), want an *Error with Cause ErrInvalidConfiguration", name, err, called)
		}
		if got := in.Stats(); got != (chaos.Stats{}) {
			t.Errorf("%s: Stats() = %+v, want no call", name, got)
		}
	}
}

// A call that is not injected allocates nothing through a Policy.
func TestPolicyAdmitAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	miss := func() float64 { return 0.99 }
	p := policy.New(policy.Retry(), policy.Guard(chaos.New(chaos.Config{ErrorProbability: 0.5, InjectedError: errInjected, Rand: miss})))
	fn := func(context.Context) (int, error) { return 1, nil }
	if n := testing.AllocsPerRun(200, func() { _, _ = policy.Do(ctx, p, fn) }); n != 0 {
		t.Errorf("through a Policy: %v allocations per admitted call, want 0", n)
	}
}
