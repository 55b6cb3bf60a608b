package budget

import (
	"context"
	"errors"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
)

// TestPolicyCause checks a budget inside a retry stage: the retry it
// refuses stops the stage with Cause ErrBudgetExhausted, and LastErr
// keeps the real error.
func TestPolicyCause(t *testing.T) {
	b := NewTokenBucket(WithMaxTokens(4)) // retries stop at 2 tokens
	p := backoff.NewPolicy(
		backoff.WithRetry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(5)),
		backoff.WithGuard(b),
	)
	calls := 0
	_, err := backoff.Execute(t.Context(), p, func(context.Context) (int, error) {
		calls++
		return 0, errDown
	})
	var e *backoff.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want a *backoff.Error", err)
	}
	if !errors.Is(e.Cause, ErrBudgetExhausted) || !errors.Is(err, ErrBudgetExhausted) {
		t.Fatalf("Cause = %v, want ErrBudgetExhausted", e.Cause)
	}
	if e.LastErr != errDown {
		t.Fatalf("LastErr = %v, want the attempt's error", e.LastErr)
	}
	// Attempt 1 fails (3 tokens), attempt 2 is admitted and fails (2),
	// attempt 3 is refused: 2 calls of the 5 allowed.
	if calls != 2 {
		t.Fatalf("calls = %d, want 2", calls)
	}
	if backoff.IsRefusal(err) {
		t.Fatal("IsRefusal = true for a call whose attempts ran")
	}
	if s := b.Stats(); s.Tokens != 2 || s.Allowed != 1 || s.Refused != 1 {
		t.Fatalf("Stats = %+v, want 2 tokens, 1 retry allowed, 1 refused", s)
	}

	// A later call still makes its first attempt, and no retry.
	calls = 0
	_, err = backoff.Execute(t.Context(), p, func(context.Context) (int, error) {
		calls++
		return 0, errDown
	})
	if calls != 1 || !errors.Is(err, ErrBudgetExhausted) {
		t.Fatalf("second call: calls = %d, err = %v, want 1 call and ErrBudgetExhausted", calls, err)
	}
}

// TestPolicyRatioCause is TestPolicyCause for a ratio budget.
func TestPolicyRatioCause(t *testing.T) {
	b, _ := newRatio(t, WithMinRetriesPerSecond(0.1)) // a reserve of 1 retry
	p := backoff.NewPolicy(
		backoff.WithRetry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(5)),
		backoff.WithGuard(b),
	)
	calls := 0
	err := p.Execute(t.Context(), func(context.Context) error { calls++; return errDown })
	var e *backoff.Error
	if !errors.As(err, &e) || !errors.Is(e.Cause, ErrBudgetExhausted) || e.LastErr != errDown || calls != 2 {
		t.Fatalf("err = %+v, calls = %d; want Cause ErrBudgetExhausted, LastErr errDown, 2 calls", err, calls)
	}
}

// TestPolicyFallback checks that a fallback around the retry stage gets
// the refusal.
func TestPolicyFallback(t *testing.T) {
	b := NewTokenBucket(WithMaxTokens(1))
	var got error
	p := backoff.NewPolicy(
		backoff.WithFallbackErr(func(_ context.Context, err error) error { got = err; return nil }),
		backoff.WithRetry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(5)),
		backoff.WithGuard(b),
	)
	if err := p.Execute(t.Context(), func(context.Context) error { return errDown }); err != nil {
		t.Fatalf("err = %v, want the fallback's nil", err)
	}
	if !errors.Is(got, ErrBudgetExhausted) {
		t.Fatalf("the fallback got %v, want ErrBudgetExhausted", got)
	}
}

// TestPolicyOutsideRetry checks the documented limit: outside the retry
// stage a budget sees only first attempts, and never refuses.
func TestPolicyOutsideRetry(t *testing.T) {
	b := NewTokenBucket(WithMaxTokens(1))
	p := backoff.NewPolicy(
		backoff.WithGuard(b),
		backoff.WithRetry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(4)),
	)
	calls := 0
	err := p.Execute(t.Context(), func(context.Context) error { calls++; return errDown })
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
	b := NewTokenBucket() // 10 tokens
	fail(b, 5)
	p := backoff.NewPolicy(
		backoff.WithRetry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(3)),
		backoff.WithGuard(b),
	)
	if err := p.Execute(t.Context(), func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	fails := 1
	err := p.Execute(t.Context(), func(context.Context) error {
		if fails > 0 {
			fails--
			return errDown
		}
		return nil
	})
	// 5.1 tokens: the first attempt fails (4.1), and the retry is refused.
	if !errors.Is(err, ErrBudgetExhausted) {
		t.Fatalf("err = %v, want ErrBudgetExhausted", err)
	}
}

// TestSuccessPathAllocs checks that admitted successes allocate nothing:
// a first attempt, and a retry.
func TestSuccessPathAllocs(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		b    *Budget
	}{{"tokens", NewTokenBucket()}, {"ratio", NewRatio(WithRetryRatio(1))}} {
		allocs := testing.AllocsPerRun(1000, func() {
			for _, c := range []backoff.Call{first, retry} {
				p, err := tc.b.Allow(ctx, c)
				if err != nil {
					t.Fatal(err)
				}
				tc.b.Record(p, backoff.Outcome{})
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocs, want 0", tc.name, allocs)
		}
	}
}

func BenchmarkSuccess(b *testing.B) {
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		g    *Budget
	}{{"tokens", NewTokenBucket()}, {"ratio", NewRatio()}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, _ := bc.g.Allow(ctx, first)
				bc.g.Record(p, backoff.Outcome{})
			}
		})
		b.Run(bc.name+"/parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					p, _ := bc.g.Allow(ctx, first)
					bc.g.Record(p, backoff.Outcome{})
				}
			})
		})
	}
}

// BenchmarkRetry measures an admitted retry that succeeds: the failure
// path's admission.
func BenchmarkRetry(b *testing.B) {
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		g    *Budget
	}{{"tokens", NewTokenBucket()}, {"ratio", NewRatio(WithRetryRatio(1000))}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = bc.g.Allow(ctx, first)
				p, _ := bc.g.Allow(ctx, retry)
				bc.g.Record(p, backoff.Outcome{})
			}
		})
	}
}

// BenchmarkPolicy measures a successful call through a Policy with a
// budget inside its retry stage.
func BenchmarkPolicy(b *testing.B) {
	ctx := context.Background()
	p := backoff.NewPolicy(backoff.WithRetry(), backoff.WithGuard(NewTokenBucket()))
	b.ReportAllocs()
	for b.Loop() {
		_ = p.Execute(ctx, func(context.Context) error { return nil })
	}
}

// Allow refuses a nil context, token bucket or ratio, first attempt or
// retry, as every guard of the module does, with the same words: an
// error matching ErrInvalidConfiguration, and nothing counted.
func TestAllowNilContext(t *testing.T) {
	const want = "backoff: invalid configuration: budget: Allow was given a nil context"
	spent := NewTokenBucket(WithMaxTokens(2))
	spent.Record(backoff.Permit{}, backoff.Outcome{Err: errDown})
	cases := []struct {
		name string
		b    *Budget
	}{
		{"TokenBucket", NewTokenBucket()},
		{"TokenBucket_spent", spent},
		{"TokenBucket_invalid", NewTokenBucket(WithMaxTokens(0))},
		{"Ratio", NewRatio(WithClock(clock.NewMock()))},
		{"Ratio_invalid", NewRatio(WithWindow(0))},
		{"zero", &Budget{}},
		{"nil", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := c.b.Stats()
			for _, attempt := range []int{1, 2} {
				//lint:ignore SA1012 a nil context is what is tested
				p, err := c.b.Allow(nil, backoff.Call{Attempt: attempt})
				if !errors.Is(err, backoff.ErrInvalidConfiguration) || err.Error() != want || p != (backoff.Permit{}) {
					t.Errorf("Allow(nil, attempt %d) = %+v, %v; want %q", attempt, p, err, want)
				}
			}
			if after := c.b.Stats(); after != before {
				t.Errorf("Stats() = %+v after Allow(nil), want %+v", after, before)
			}
		})
	}
}
