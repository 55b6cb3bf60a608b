package budget

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/herdsafe/backoff/guard"
)

var errDown = errors.New("dependency down")

var (
	first = guard.Call{Attempt: 1}
	retry = guard.Call{Attempt: 2}
)

// admits reports whether b admits c, recording nothing.
func admits(t *testing.T, b *Budget, c guard.Call) bool {
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
		b.Record(guard.Permit{}, guard.Outcome{Err: errDown})
	}
}

// succeed records n successful calls in b.
func succeed(b *Budget, n int) {
	for range n {
		b.Record(guard.Permit{}, guard.Outcome{})
	}
}

// spyGuard admits everything and hands each Outcome to record.
type spyGuard struct{ record func(guard.Outcome) }

func (s *spyGuard) Allow(context.Context, guard.Call) (guard.Permit, error) {
	return guard.Permit{}, nil
}

func (s *spyGuard) Record(_ guard.Permit, o guard.Outcome) { s.record(o) }

// retryOnly is a Budget that takes every call for a retry, so that it
// refuses outside a retry stage: a way to make an inner refusal.
type retryOnly struct{ b *Budget }

func (r retryOnly) Allow(ctx context.Context, _ guard.Call) (guard.Permit, error) {
	return r.b.Allow(ctx, retry)
}

func (r retryOnly) Record(p guard.Permit, o guard.Outcome) { r.b.Record(p, o) }

// concurrently has goroutines goroutines call do each times each, all at
// once, and waits for them.
func concurrently(goroutines, each int, do func()) {
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range each {
				do()
			}
		})
	}
	wg.Wait()
}
