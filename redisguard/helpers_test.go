package redisguard

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
)

var errDown = errors.New("dependency down")

// budgetExhausted is the refusal of a budget.
var budgetExhausted = budget.ErrBudgetExhausted

var (
	first = guard.Call{Attempt: 1}
	retry = guard.Call{Attempt: 2}
	bg    = context.Background()
)

// runID keeps the keys of one run of the tests apart from those of
// another on a server given by REDIS_ADDR, whose keys outlive a run.
var runID = strconv.FormatInt(time.Now().UnixNano(), 36)

// names holds the guard name of each test, so that every run of a test
// (-count) has keys of its own.
var names = struct {
	sync.Mutex
	m map[testing.TB]string
	n int
}{m: map[testing.TB]string{}}

// name returns t's guard name: the same for every call within t.
func name(t testing.TB) string {
	names.Lock()
	defer names.Unlock()
	if n, ok := names.m[t]; ok {
		return n
	}
	names.n++
	n := strings.NewReplacer("/", ".", " ", "_").Replace(t.Name()) + "." + runID + "." + strconv.Itoa(names.n)
	names.m[t] = n
	t.Cleanup(func() {
		names.Lock()
		delete(names.m, t)
		names.Unlock()
	})
	return n
}

// virtual is the time of a test: a mock clock for the instances, and the
// same advance added to the Redis server's clock, as the breaker's
// script reads it.
type virtual struct {
	mock  *clock.Mock
	shift atomic.Int64
}

func newVirtual() *virtual { return &virtual{mock: clock.NewMock()} }

// advance moves both clocks by d.
func (v *virtual) advance(d time.Duration) {
	v.shift.Add(int64(d))
	v.mock.Add(d)
}

// option makes a guard live on v's time.
func (v *virtual) option() Option {
	return func(c *config) {
		c.breaker = append(c.breaker, breaker.WithClock(v.mock))
		c.budget = append(c.budget, budget.WithClock(v.mock))
		c.shift = func() time.Duration { return time.Duration(v.shift.Load()) }
	}
}

// generous is a timeout no round trip on loopback should reach, even
// under the race detector on a loaded machine: the tests of the shared
// state use it, so that none of them falls back by accident.
var generous = WithTimeout(5 * time.Second)

// roundTrips returns the round trips a guard made so far.
func roundTrips(g any) uint64 {
	switch g := g.(type) {
	case *Budget:
		return g.Stats().Link.RoundTrips
	case *Breaker:
		return g.Stats().Link.RoundTrips
	}
	panic("not a guard")
}

// wantRoundTrips runs do, the step what of a test, and checks that it
// succeeded and made want round trips to Redis through g, a *Budget or a
// *Breaker.
func wantRoundTrips(t *testing.T, g any, what string, want uint64, do func() error) {
	t.Helper()
	before := roundTrips(g)
	if err := do(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if got := roundTrips(g) - before; got != want {
		t.Errorf("%s: %d round trips, want %d", what, got, want)
	}
}

// mustShared fails t if g, a shared guard, has fallen back.
func mustShared(t testing.TB, g any) {
	t.Helper()
	var l Link
	switch g := g.(type) {
	case *Budget:
		l = g.Stats().Link
	case *Breaker:
		l = g.Stats().Link
	default:
		return
	}
	if !l.Shared || l.Fallbacks != 0 || l.Errors != 0 {
		t.Fatalf("the guard fell back: %+v", l)
	}
}

// retriesAdmitted has 40 goroutines, each on the next of instances in
// turn, ask for 3 retries each, all at once, and returns how many were
// admitted; a refusal other than the budget's, or an instance that fell
// back, fails t. With record, each admitted retry is recorded as failed.
func retriesAdmitted(t *testing.T, instances []*Budget, record bool) int {
	t.Helper()
	var wg sync.WaitGroup
	var admitted atomic.Int64
	for i := range 40 {
		b := instances[i%len(instances)]
		wg.Go(func() {
			for range 3 {
				p, err := b.Allow(bg, retry)
				if err != nil {
					if !errors.Is(err, budget.ErrBudgetExhausted) {
						t.Errorf("Allow = %v", err)
					}
					continue
				}
				admitted.Add(1)
				if record {
					b.Record(p, guard.Outcome{Err: errDown})
				}
			}
		})
	}
	wg.Wait()
	for _, b := range instances {
		mustShared(t, b)
	}
	return int(admitted.Load())
}
