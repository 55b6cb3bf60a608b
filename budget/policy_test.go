package budget_test

import (
	"context"
	"errors"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
	"github.com/herdsafe/backoff/policy"
)

// The tests of a Budget in a policy: the policy package sits above the
// guards, so they are external tests.

var errDown = errors.New("dependency down")

// fail records n failed calls in b.
func fail(b *budget.Budget, n int) {
	for range n {
		b.Record(guard.Permit{}, guard.Outcome{Err: errDown})
	}
}

// retries returns a retry stage of at most n attempts, with no wait.
func retries(n uint) policy.Stage {
	return policy.Retry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(n))
}

// TestPolicyCause checks a budget inside a retry stage: the retry it
// refuses stops the stage with a Cause that is a refusal of
// ErrBudgetExhausted, and LastErr keeps the real error.
func TestPolicyCause(t *testing.T) {
	b := budget.NewTokenBucket(budget.WithMaxTokens(4)) // retries stop at 2 tokens
	p := policy.New(retries(5), policy.Guard(b))
	calls := 0
	_, err := policy.Do(t.Context(), p, func(context.Context) (int, error) {
		calls++
		return 0, errDown
	})
	var e *backoff.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want a *backoff.Error", err)
	}
	if !errors.Is(e.Cause, budget.ErrBudgetExhausted) || !errors.Is(err, budget.ErrBudgetExhausted) ||
		!errors.Is(e.Cause, backoff.ErrRefused) {
		t.Fatalf("Cause = %v, want a refusal matching ErrBudgetExhausted", e.Cause)
	}
	if e.LastErr != errDown {
		t.Fatalf("LastErr = %v, want the attempt's error", e.LastErr)
	}
	// Attempt 1 fails (3 tokens), attempt 2 is admitted and fails (2),
	// attempt 3 is refused: 2 calls of the 5 allowed.
	if calls != 2 || e.Attempts != 2 {
		t.Fatalf("calls = %d, Attempts = %d, want 2", calls, e.Attempts)
	}
	if guard.IsRefusal(err) {
		t.Fatal("IsRefusal = true for a call whose attempts ran")
	}
	if s := b.Stats(); s.Tokens != 2 || s.Allowed != 1 || s.Refused != 1 {
		t.Fatalf("Stats = %+v, want 2 tokens, 1 retry allowed, 1 refused", s)
	}

	// A later call still makes its first attempt, and no retry.
	calls = 0
	_, err = policy.Do(t.Context(), p, func(context.Context) (int, error) {
		calls++
		return 0, errDown
	})
	if calls != 1 || !errors.Is(err, budget.ErrBudgetExhausted) {
		t.Fatalf("second call: calls = %d, err = %v, want 1 call and ErrBudgetExhausted", calls, err)
	}
}

// TestPolicyRatioCause is TestPolicyCause for a ratio budget.
func TestPolicyRatioCause(t *testing.T) {
	b := budget.NewRatio(budget.WithClock(clock.NewMock()), budget.WithMinRetriesPerSecond(0.1)) // a reserve of 1 retry
	p := policy.New(retries(5), policy.Guard(b))
	calls := 0
	err := p.DoErr(t.Context(), func(context.Context) error { calls++; return errDown })
	var e *backoff.Error
	if !errors.As(err, &e) || !errors.Is(e.Cause, budget.ErrBudgetExhausted) || !errors.Is(e.Cause, backoff.ErrRefused) ||
		e.LastErr != errDown || calls != 2 {
		t.Fatalf("err = %+v, calls = %d; want Cause a refusal of ErrBudgetExhausted, LastErr errDown, 2 calls", err, calls)
	}
}

// TestPolicyFallback checks that a fallback around the retry stage gets
// the refusal.
func TestPolicyFallback(t *testing.T) {
	b := budget.NewTokenBucket(budget.WithMaxTokens(1))
	var got error
	p := policy.New(
		policy.FallbackErr(func(_ context.Context, err error) error { got = err; return nil }),
		retries(5),
		policy.Guard(b),
	)
	if err := p.DoErr(t.Context(), func(context.Context) error { return errDown }); err != nil {
		t.Fatalf("err = %v, want the fallback's nil", err)
	}
	if !errors.Is(got, budget.ErrBudgetExhausted) {
		t.Fatalf("the fallback got %v, want ErrBudgetExhausted", got)
	}
}

// TestPolicyOutsideRetry checks the documented limit: outside the retry
// stage a budget sees only first attempts, and never refuses.
func TestPolicyOutsideRetry(t *testing.T) {
	b := budget.NewTokenBucket(budget.WithMaxTokens(1))
	p := policy.New(policy.Guard(b), retries(4))
	calls := 0
	err := p.DoErr(t.Context(), func(context.Context) error { calls++; return errDown })
	if calls != 4 || !errors.Is(err, backoff.ErrExhausted) {
		t.Fatalf("calls = %d, err = %v; want 4 calls and ErrExhausted", calls, err)
	}
	if s := b.Stats(); s.Refused != 0 || s.Tokens != 0 {
		t.Fatalf("Stats = %+v, want no refusal and the one failure counted", s)
	}
}

// TestPolicySuccessRefills checks that successes through a Policy give
// tokens back, so that retries resume.
func TestPolicySuccessRefills(t *testing.T) {
	b := budget.NewTokenBucket() // 10 tokens
	fail(b, 5)
	p := policy.New(retries(3), policy.Guard(b))
	if err := p.DoErr(t.Context(), func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	fails := 1
	err := p.DoErr(t.Context(), func(context.Context) error {
		if fails > 0 {
			fails--
			return errDown
		}
		return nil
	})
	// 5.1 tokens: the first attempt fails (4.1), and the retry is refused.
	if !errors.Is(err, budget.ErrBudgetExhausted) {
		t.Fatalf("err = %v, want ErrBudgetExhausted", err)
	}
}

// TestPolicyValidatesTheBudget checks that policy.Guard reports a
// misconfigured Budget, so that the Policy fails before running anything.
func TestPolicyValidatesTheBudget(t *testing.T) {
	var nilBudget *budget.Budget
	for name, b := range map[string]*budget.Budget{
		"tokens": budget.NewTokenBucket(budget.WithMaxTokens(-1)),
		"ratio":  budget.NewRatio(budget.WithWindow(0)),
		"zero":   {},
		"nil":    nilBudget,
	} {
		t.Run(name, func(t *testing.T) { guardtest.FailsPolicy(t, b) })
	}
}

// BenchmarkPolicy measures a successful call through a Policy with a
// budget inside its retry stage.
func BenchmarkPolicy(b *testing.B) {
	ctx := context.Background()
	p := policy.New(policy.Retry(), policy.Guard(budget.NewTokenBucket()))
	b.ReportAllocs()
	for b.Loop() {
		_ = p.DoErr(ctx, func(context.Context) error { return nil })
	}
}
