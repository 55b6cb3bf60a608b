package budget

import (
	"context"
	"errors"
	"testing"

	"github.com/herdsafe/backoff"
)

var errDown = errors.New("dependency down")

var (
	first = backoff.Call{Attempt: 1}
	retry = backoff.Call{Attempt: 2}
)

// admits reports whether b admits c, recording nothing.
func admits(t *testing.T, b *Budget, c backoff.Call) bool {
	t.Helper()
	_, err := b.Allow(context.Background(), c)
	switch {
	case err == nil:
		return true
	case errors.Is(err, ErrBudgetExhausted):
		return false
	}
	t.Fatalf("Allow(%+v) = %v, want nil or ErrBudgetExhausted", c, err)
	return false
}

// fail records n failed calls in b.
func fail(b *Budget, n int) {
	for range n {
		b.Record(backoff.Permit{}, backoff.Outcome{Err: errDown})
	}
}

// succeed records n successful calls in b.
func succeed(b *Budget, n int) {
	for range n {
		b.Record(backoff.Permit{}, backoff.Outcome{})
	}
}

// spyGuard admits everything and hands each Outcome to record.
type spyGuard struct{ record func(backoff.Outcome) }

func (s *spyGuard) Allow(context.Context, backoff.Call) (backoff.Permit, error) {
	return backoff.Permit{}, nil
}

func (s *spyGuard) Record(_ backoff.Permit, o backoff.Outcome) { s.record(o) }

// retryOnly is a Budget that takes every call for a retry, so that it
// refuses outside a retry stage: a way to make an inner refusal.
type retryOnly struct{ b *Budget }

func (r retryOnly) Allow(ctx context.Context, _ backoff.Call) (backoff.Permit, error) {
	return r.b.Allow(ctx, retry)
}

func (r retryOnly) Record(p backoff.Permit, o backoff.Outcome) { r.b.Record(p, o) }
