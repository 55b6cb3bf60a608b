package budget

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
)

// allowN asks b to admit n calls c and returns the permits of those it
// admitted.
func allowN(t *testing.T, b *Budget, c guard.Call, n int) []guard.Permit {
	t.Helper()
	var ps []guard.Permit
	for range n {
		if p, err := b.Allow(context.Background(), c); err == nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// An in-flight budget admits every first attempt, and retries while the
// retries in flight, with the new one, are at most the minimum or the
// ratio of all the calls in flight, whichever is more.
func TestInFlightLimits(t *testing.T) {
	cases := []struct {
		name        string
		opts        []Option
		firsts      int
		wantRetries int
	}{
		{"quiet_client_gets_the_minimum", nil, 1, 3},
		{"ten_in_flight", nil, 10, 3},    // 20% of 13 is 2: the minimum of 3 holds
		{"thirty_in_flight", nil, 30, 7}, // 7 of 37 in flight; an 8th would make 8 of 38 (21%)
		{"hundred_in_flight", nil, 100, 25},
		{"no_minimum", []Option{WithMinRetryConcurrency(0)}, 4, 1}, // 1 of 5
		{"ratio_zero", []Option{WithInFlightRatio(0), WithMinRetryConcurrency(2)}, 100, 2},
		{"no_retries", []Option{WithInFlightRatio(0), WithMinRetryConcurrency(0)}, 100, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := NewInFlight(c.opts...)
			if got := len(allowN(t, b, first, c.firsts)); got != c.firsts {
				t.Fatalf("admitted %d of %d first attempts", got, c.firsts)
			}
			retries := allowN(t, b, retry, 1000)
			if len(retries) != c.wantRetries {
				t.Errorf("admitted %d retries with %d first attempts in flight, want %d", len(retries), c.firsts, c.wantRetries)
			}
			s := b.Stats()
			if s.Requests != uint64(c.firsts+c.wantRetries) || s.Retries != uint64(c.wantRetries) || s.Allowed != uint64(c.wantRetries) || s.Refused != uint64(1000-c.wantRetries) {
				t.Errorf("Stats = %+v", s)
			}
		})
	}
}

// A call that ends leaves the budget, whatever its outcome: a retry's
// place goes to the next retry, and once nothing is in flight the budget
// is back to its minimum.
func TestInFlightRecord(t *testing.T) {
	b := NewInFlight()
	firsts := allowN(t, b, first, 1)
	retries := allowN(t, b, retry, 10)
	if len(retries) != 3 || admits(t, b, retry) {
		t.Fatalf("admitted %d retries, want 3", len(retries))
	}
	b.Record(retries[0], guard.Outcome{Err: errDown})
	if p, err := b.Allow(context.Background(), retry); err != nil {
		t.Fatal("a retry's place was not freed:", err)
	} else {
		retries[0] = p
	}
	for _, p := range append(firsts, retries...) {
		b.Record(p, guard.Outcome{Abandoned: true})
	}
	if s := b.Stats(); s.Requests != 0 || s.Retries != 0 {
		t.Errorf("with nothing in flight, Stats = %+v", s)
	}
}

// Concurrent first attempts and retries never put more retries in flight
// than the budget allows at the moment each is admitted.
func TestInFlightConcurrent(t *testing.T) {
	b := NewInFlight(WithMinRetryConcurrency(2))
	var over atomic.Int64
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 500 {
				c := first
				if (g+i)%2 == 0 {
					c = retry
				}
				p, err := b.Allow(context.Background(), c)
				if err != nil {
					continue
				}
				if r := b.flight.retries.Load(); r > max(2, b.flight.calls.Load()) {
					over.Add(1)
				}
				b.Record(p, guard.Outcome{})
			}
		})
	}
	wg.Wait()
	if s := b.Stats(); s.Requests != 0 || s.Retries != 0 || over.Load() != 0 {
		t.Errorf("after the calls: Stats = %+v, %d readings over the limit", s, over.Load())
	}
}

// Inside a retry stage: a client's retries one after another each find
// the budget empty, and are all admitted; retries at once are capped,
// and the others end with the budget's refusal.
func TestInFlightInPolicy(t *testing.T) {
	b := NewInFlight()
	p := policy.New(policy.Retry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(5)), policy.Guard(b))
	attempts := 0
	_ = p.DoErr(context.Background(), func(context.Context) error { attempts++; return errDown })
	if attempts != 5 || b.Stats().Requests != 0 {
		t.Fatalf("%d attempts one at a time, Stats %+v; want 5 and nothing in flight", attempts, b.Stats())
	}

	release := make(chan struct{})
	var retrying atomic.Int64
	errs := make(chan error, 10)
	for range 10 {
		go func() {
			n := 0
			errs <- p.DoErr(context.Background(), func(context.Context) error {
				if n++; n == 1 {
					return errDown
				}
				retrying.Add(1)
				<-release
				return nil
			})
		}()
	}
	refused := 0
	for range 10 - 3 {
		if err := <-errs; !errors.Is(err, ErrBudgetExhausted) {
			t.Fatalf("a call ended with %v; want the budget's refusal", err)
		}
		refused++
	}
	close(release)
	for range 3 {
		if err := <-errs; err != nil {
			t.Errorf("an admitted retry ended with %v", err)
		}
	}
	if retrying.Load() != 3 || b.Stats().Requests != 0 {
		t.Errorf("%d retries ran at once, Stats %+v; want the minimum, 3, and nothing in flight after", retrying.Load(), b.Stats())
	}
}
