package throttle_test

import (
	"context"
	"errors"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
	"github.com/herdsafe/backoff/policy"
	"github.com/herdsafe/backoff/throttle"
)

// The tests of a Throttle in a policy: the policy package sits above the
// guards, so they are external tests.

// TestPolicyCause checks a Throttle inside a retry stage: its rejection
// stops the stage with a Cause that is a refusal of ErrThrottled, and
// LastErr keeps the real error.
func TestPolicyCause(t *testing.T) {
	th := throttle.New(throttle.WithClock(clock.NewMock()), throttle.WithRandom(func() float64 { return 0.4 }))
	p := policy.New(
		policy.Retry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(5)),
		policy.Guard(th),
	)
	calls := 0
	_, err := policy.Do(t.Context(), p, func(context.Context) (int, error) {
		calls++
		return 0, errOverloaded
	})
	var e *backoff.Error
	if !errors.As(err, &e) || !errors.Is(e.Cause, throttle.ErrThrottled) || !errors.Is(e.Cause, backoff.ErrRefused) ||
		e.LastErr != errOverloaded {
		t.Fatalf("err = %+v; want Cause a refusal of ErrThrottled, LastErr errOverloaded", err)
	}
	// Attempt 1 at probability 0, attempt 2 at 1/2: rejected by 0.4.
	if calls != 1 {
		t.Fatalf("calls = %d, want 1", calls)
	}
	if s := th.Stats(); s.Requests != 2 || s.Accepts != 0 || s.Rejected != 1 {
		t.Fatalf("Stats = %+v", s)
	}
}

// TestPolicyFirstAttemptRejected checks that a Throttle rejects first
// attempts too: outside any retry stage, a rejection is a refusal the
// dependency never saw.
func TestPolicyFirstAttemptRejected(t *testing.T) {
	th := throttle.New(throttle.WithClock(clock.NewMock()), throttle.WithRandom(func() float64 { return 0 }))
	p, _ := th.Allow(t.Context(), guard.Call{Attempt: 1}) // one request, not accepted: probability 1/2
	th.Record(p, guard.Outcome{Err: errOverloaded})
	ran := false
	err := policy.New(policy.Guard(th)).DoErr(t.Context(), func(context.Context) error { ran = true; return nil })
	if ran || !errors.Is(err, throttle.ErrThrottled) || !guard.IsRefusal(err) {
		t.Fatalf("err = %v, ran = %v; want a refusal with ErrThrottled before running", err, ran)
	}
}

// TestPolicyValidatesTheThrottle checks that policy.Guard reports a
// misconfigured Throttle, so that the Policy fails before running
// anything.
func TestPolicyValidatesTheThrottle(t *testing.T) {
	var nilThrottle *throttle.Throttle
	for name, th := range map[string]*throttle.Throttle{
		"bad option": throttle.New(throttle.WithK(0)),
		"zero":       {},
		"nil":        nilThrottle,
	} {
		t.Run(name, func(t *testing.T) { guardtest.FailsPolicy(t, th) })
	}
}

// BenchmarkPolicy measures a successful call through a Policy with a
// Throttle inside its retry stage.
func BenchmarkPolicy(b *testing.B) {
	ctx := context.Background()
	p := policy.New(policy.Retry(), policy.Guard(throttle.New()))
	b.ReportAllocs()
	for b.Loop() {
		_ = p.DoErr(ctx, func(context.Context) error { return nil })
	}
}
