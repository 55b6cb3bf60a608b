package redisguard

import (
	"fmt"
	"testing"
	"time"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/guard"
)

// rateStep is one call of a failure-rate breaker's script: the time that
// passes before it, how it ends, and how long it takes.
type rateStep struct {
	wait time.Duration
	err  error
	took time.Duration
}

// steps returns n calls that end with err, each taking took.
func steps(n int, err error, took time.Duration) []rateStep {
	s := make([]rateStep, n)
	for i := range s {
		s[i] = rateStep{err: err, took: took}
	}
	return s
}

// later returns s with d passing before its first call.
func later(d time.Duration, s []rateStep) []rateStep {
	s[0].wait = d
	return s
}

func cat(parts ...[]rateStep) (out []rateStep) {
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TestRateBreakerMatchesLocal runs scripted calls through one shared
// breaker and through breaker.New side by side, on one virtual time: the
// same admissions and the same states, call by call, through trips and
// the half-open cycle. WithStaleness(0) makes every Allow a round trip,
// which sends the outcome before, as a local breaker counts it at once.
func TestRateBreakerMatchesLocal(t *testing.T) {
	addr := needRedis(t)
	open := WithBreaker(breaker.WithOpenDuration(10*time.Second), breaker.WithHalfOpen(2, 2))
	tests := []struct {
		name  string
		width time.Duration // a slot of the time window, to align; 0 for none (a slot of 1 s leaves the real time the test takes a second)
		opts  []breaker.Option
		steps []rateStep
	}{
		{"rate_of_calls", 0, []breaker.Option{breaker.WithFailureRate(0.5, 4, 10)}, cat(
			steps(3, errDown, 0),                                         // 3 of 3: fewer than minCalls
			steps(6, nil, 0),                                             // 3 of 9
			steps(2, errDown, 0),                                         // 5 of 10: trips
			steps(2, nil, 0),                                             // refused
			later(10*time.Second, steps(1, errDown, 0)),                  // a probe fails
			later(10*time.Second, steps(3, nil, 0)),                      // two probes close it, the window empty
			steps(3, errDown, 0), steps(1, nil, 0), steps(1, errDown, 0), // 4 of 5 since it closed: trips
			steps(1, nil, 0),
		)},
		{"ring_wraps", 0, []breaker.Option{breaker.WithFailureRate(0.6, 10, 13)}, cat(
			steps(7, errDown, 0), steps(13, nil, 0), steps(7, errDown, 0), steps(1, nil, 0), steps(1, errDown, 0), steps(3, nil, 0),
		)},
		{"rate_over_time", time.Second / 10, []breaker.Option{breaker.WithFailureRateOver(0.5, 4, time.Second)}, cat(
			steps(3, errDown, 0),
			later(600*time.Millisecond, steps(5, nil, 0)),     // 3 of 8
			later(450*time.Millisecond, steps(1, errDown, 0)), // the first slot has gone: 1 of 6
			steps(4, errDown, 0),                              // 5 of 10: trips
			steps(1, nil, 0),
		)},
		{"slow_calls", 0, []breaker.Option{breaker.WithFailureRate(1, 4, 8), breaker.WithSlowCalls(time.Second, 0.5)}, cat(
			steps(3, nil, 2*time.Second), steps(4, nil, time.Millisecond), steps(1, errDown, 2*time.Second), // 4 slow of 8: trips
			steps(1, nil, 0),
			later(10*time.Second, steps(1, nil, 2*time.Second)), // a slow probe reopens it
			steps(1, nil, 0),
			later(10*time.Second, steps(2, nil, 0)), steps(3, nil, 2*time.Second), steps(1, nil, 0),
		)},
		{"slow_calls_over_time", time.Second, []breaker.Option{breaker.WithFailureRateOver(0.9, 2, 10*time.Second), breaker.WithSlowCalls(100*time.Millisecond, 0.6)}, cat(
			steps(2, nil, 0), steps(2, errDown, 200*time.Millisecond), steps(1, nil, 200*time.Millisecond), // 3 slow of 5: trips
			steps(1, nil, 0),
		)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newVirtual()
			if tt.width > 0 {
				v.alignSlot(t, addr, tt.width)
			}
			local := breaker.New(append([]breaker.Option{breaker.WithClock(v.mock), breaker.WithOpenDuration(10 * time.Second), breaker.WithHalfOpen(2, 2)}, tt.opts...)...)
			shared := NewBreaker(newClient(t, addr), name(t), WithBreaker(tt.opts...), open, WithStaleness(0), generous, v.option())
			if err := shared.Validate(); err != nil {
				t.Fatal(err)
			}
			var refused, trips int
			for i, s := range tt.steps {
				v.advance(s.wait)
				ps, errS := shared.Allow(bg, first)
				pl, errL := local.Allow(bg, first)
				if (errS == nil) != (errL == nil) || errL != nil && !isOpen(errS, local.State()) {
					t.Fatalf("step %d %+v: shared Allow = %v, local %v", i, s, errS, errL)
				}
				if errS != nil {
					refused++
					continue
				}
				v.advance(s.took)
				shared.Record(ps, guard.Outcome{Err: s.err})
				before := local.State()
				local.Record(pl, guard.Outcome{Err: s.err})
				if before == breaker.Closed && local.State() == breaker.Open {
					trips++
				}
			}
			if refused == 0 || trips == 0 {
				t.Errorf("%d refused, %d trips: the script does not test a trip", refused, trips)
			}
			if got, want := shared.Stats().Slow, local.Counts().Slow; got != want {
				t.Errorf("%d slow calls recorded, the local breaker %d", got, want)
			}
			mustShared(t, shared)
		})
	}
}

// TestRateBreakerFleet: the fleet's failure rate trips the breaker where
// no instance's own would: one instance's calls all succeed, the other's
// all fail, and neither has the window's minimum alone.
func TestRateBreakerFleet(t *testing.T) {
	v := newVirtual()
	f := sharedBreakers(t, v, 2, WithBreaker(breaker.WithFailureRate(0.5, 20, 100)))
	ok, bad := f[0], f[1]
	for range 10 {
		if err := call(ok, nil); err != nil {
			t.Fatal(err)
		}
	}
	v.advance(DefaultStaleness) // ok's successes reach the fleet with its next round trip
	if err := call(ok, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		if err := call(bad, errDown); err != nil {
			t.Fatalf("failure %d: %v", i, err)
		}
	}
	if got := bad.State(); got != breaker.Open {
		t.Fatalf("12 failures of 24 calls (11 successes of the other instance, and one of each's warming up): %v, want open (%+v)", got, bad.Stats())
	}
	v.advance(DefaultStaleness)
	if err := call(ok, nil); !isOpen(err, breaker.Open) {
		t.Fatalf("the instance that saw only successes: %v, want the fleet's breaker open", err)
	}
	local := breaker.New(breaker.WithFailureRate(0.5, 20, 100))
	for range 12 {
		p, _ := local.Allow(bg, first)
		local.Record(p, guard.Outcome{Err: errDown})
	}
	if local.State() != breaker.Closed {
		t.Fatalf("a local breaker tripped on 12 calls with a minimum of 20")
	}
}

// TestRateBreakerRoundTrips counts what a failure-rate breaker's calls
// cost: a healthy instance makes one round trip per staleness period,
// whatever its traffic, which sends what it owes; a failure below the rate
// is owed too; a failure that may trip the breaker goes at once.
func TestRateBreakerRoundTrips(t *testing.T) {
	v := newVirtual()
	b := sharedBreakers(t, v, 1, WithBreaker(breaker.WithFailureRate(0.2, 10, 1000)))[0]
	before := roundTrips(b)
	for range 1000 {
		if err := call(b, nil); err != nil {
			t.Fatal(err)
		}
	}
	if got := roundTrips(b) - before; got != 0 {
		t.Errorf("1000 successes on a fresh view: %d round trips, want 0", got)
	}
	v.advance(DefaultStaleness)
	call(b, errDown)
	if got := roundTrips(b) - before; got != 1 {
		t.Errorf("past the staleness, a failure: %d round trips, want 1 (its Allow's)", got)
	}
	if s := b.Stats(); s.WindowCalls != 1000 || s.WindowFailures != 0 {
		t.Errorf("the window after the round trip: %d calls, %d failures; want 1000 and 0 (the success of warming up dropped)", s.WindowCalls, s.WindowFailures)
	}
	before = roundTrips(b)
	for range 100 {
		call(b, errDown) // 101 of 1000: below the rate
	}
	if got := roundTrips(b) - before; got != 0 {
		t.Errorf("100 failures below the rate: %d round trips, want 0", got)
	}
	for i := 0; b.State() == breaker.Closed; i++ {
		if i > 200 {
			t.Fatalf("200 more failures did not trip it: %+v", b.Stats())
		}
		call(b, errDown)
	}
	if got := roundTrips(b) - before; got != 1 {
		t.Errorf("the failure that trips it: %d round trips, want 1", got)
	}
	if s := b.Stats(); s.Failures < 200 || s.Successes != 1001 {
		t.Errorf("Stats = %+v", s)
	}
	mustShared(t, b)
}

// TestRateBreakerKeys: the window lives beside the state, under the
// guard's hash tag, with a TTL; a change of state empties it.
func TestRateBreakerKeys(t *testing.T) {
	addr := needRedis(t)
	a := admin(t, addr)
	for i, opt := range []breaker.Option{breaker.WithFailureRate(0.5, 2, 10), breaker.WithFailureRateOver(0.5, 2, time.Minute)} {
		v := newVirtual()
		nm := fmt.Sprintf("%s.%d", name(t), i)
		b := NewBreaker(newClient(t, addr), nm, WithBreaker(opt), WithStaleness(0), WithTTL(time.Minute), generous, v.option())
		key := "backoff:{" + nm + "}:window"
		call(b, errDown)
		call(b, nil)
		ttl, err := a.PTTL(bg, key).Result()
		if err != nil || ttl <= time.Minute || ttl > 4*time.Minute {
			t.Errorf("rule %d: PTTL %s = %v, %v; want more than WithTTL's minute", i, key, ttl, err)
		}
		call(b, errDown) // 2 of 3
		call(b, nil)     // sends it: trips
		if b.State() != breaker.Open {
			t.Fatalf("rule %d: %v, want open", i, b.State())
		}
		if n, err := a.Exists(bg, key).Result(); err != nil || n != 0 {
			t.Errorf("rule %d: the open breaker's window: EXISTS %s = %d, %v; want 0", i, key, n, err)
		}
	}
}

// TestRateBreakerRing checks the ring of WithFailureRate's window bit by
// bit against a model of it, through batches of owed outcomes of every
// size, across the ends of the ring and of its bytes: a batch is written
// as runs (slow failures, failures, slow successes, successes), and a
// batch larger than the ring is cut to it in its proportions.
func TestRateBreakerRing(t *testing.T) {
	const size = 37 // not a whole number of bytes
	addr := needRedis(t)
	v := newVirtual()
	b := NewBreaker(newClient(t, addr), name(t), WithBreaker(breaker.WithFailureRate(1, size, size), breaker.WithSlowCalls(time.Second, 1)),
		WithStaleness(time.Hour), generous, v.option())
	key := "backoff:{" + name(t) + "}:window"
	a := admin(t, addr)
	warm(t, b)

	var fail, slow [size]bool
	n := 0
	write := func(count int, f, s bool) {
		for range count {
			fail[n%size], slow[n%size] = f, s
			n++
		}
	}
	// batches of {slow failures, failures, slow successes, successes};
	// each has a fast success, so that the breaker never trips.
	batches := [][4]int{{0, 0, 0, 1}, {1, 2, 3, 4}, {0, 5, 0, 3}, {7, 0, 9, 1}, {2, 2, 2, 2}, {10, 20, 30, 15}, {0, 0, 0, 40}, {3, 1, 4, 1}, {12, 0, 0, 1}}
	for i, bt := range batches {
		for kind, count := range bt {
			for range count {
				p, err := b.Allow(bg, first)
				if err != nil {
					t.Fatalf("batch %d: %v", i, err)
				}
				var took time.Duration
				if kind == 0 || kind == 2 {
					took = 2 * time.Second
				}
				v.advance(took)
				var err2 error
				if kind < 2 {
					err2 = errDown
				}
				b.Record(p, guard.Outcome{Err: err2})
			}
		}
		v.advance(time.Hour) // the next Allow sends the batch
		p, err := b.Allow(bg, first)
		if err != nil {
			t.Fatalf("batch %d sent: %v", i, err)
		}
		b.Record(p, guard.Outcome{Abandoned: true})

		// The model: the batch in its runs, cut to the ring in proportion.
		runs := []struct {
			count   int
			f, s    bool
			cut     bool
			counted int
		}{{count: bt[0], f: true, s: true}, {count: bt[1], f: true}, {count: bt[2], s: true}, {count: bt[3]}}
		if i == 0 {
			runs[3].count++ // warming up's success, owed
		}
		total := 0
		for _, r := range runs {
			total += r.count
		}
		if total > size {
			left := size
			for j := range runs {
				k := runs[j].count * size / total
				runs[j].cut, runs[j].count, left = runs[j].count > k, k, left-k
			}
			for j := range runs {
				if left > 0 && runs[j].cut {
					runs[j].count++
					left--
				}
			}
		}
		for _, r := range runs {
			write(r.count, r.f, r.s)
		}

		raw, err := a.Get(bg, key).Bytes()
		if err != nil {
			t.Fatalf("batch %d: GET %s: %v", i, key, err)
		}
		bitAt := func(i int) bool { return i/8 < len(raw) && raw[i/8]&(0x80>>(i%8)) != 0 }
		wantF, wantS := 0, 0
		for j := range size {
			if bitAt(j) != fail[j] || bitAt(40+j) != slow[j] {
				t.Fatalf("batch %d: place %d of the ring is (failed %v, slow %v), want (%v, %v)", i, j, bitAt(j), bitAt(40+j), fail[j], slow[j])
			}
			if fail[j] {
				wantF++
			}
			if slow[j] {
				wantS++
			}
		}
		if s := b.Stats(); s.WindowCalls != uint64(min(n, size)) || s.WindowFailures != uint64(wantF) || s.WindowSlow != uint64(wantS) {
			t.Fatalf("batch %d: the window holds %d calls, %d failures, %d slow; want %d, %d, %d", i, s.WindowCalls, s.WindowFailures, s.WindowSlow, min(n, size), wantF, wantS)
		}
	}
	if b.State() != breaker.Closed {
		t.Fatalf("the ring tripped the breaker: %+v", b.Stats())
	}
	mustShared(t, b)
}

// TestRateBreakerSuccessAllocatesNothing: an admitted success of a
// failure-rate breaker, on a fresh closed view, makes no round trip and
// allocates nothing: its outcome is owed.
func TestRateBreakerSuccessAllocatesNothing(t *testing.T) {
	for _, opt := range []breaker.Option{breaker.WithFailureRate(0.5, 10, 100), breaker.WithFailureRateOver(0.5, 10, time.Minute)} {
		v := newVirtual()
		b := sharedBreakers(t, v, 1, WithBreaker(opt, breaker.WithSlowCalls(time.Second, 0.5)))[0]
		call(b, nil) // the first owed outcome reads the clock once
		before := roundTrips(b)
		n := testing.AllocsPerRun(100, func() {
			if err := call(b, nil); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 || roundTrips(b) != before {
			t.Errorf("%v allocations and %d round trips, want 0 and 0", n, roundTrips(b)-before)
		}
	}
}

// TestRateBreakerUnreachable: with no server, the local fallback, a
// breaker.New of the same failure rate, decides from the first call.
func TestRateBreakerUnreachable(t *testing.T) {
	v := newVirtual()
	c := faultClient("127.0.0.1:1")
	defer c.Close()
	b := NewBreaker(c, name(t), WithBreaker(breaker.WithFailureRate(0.5, 4, 10)), v.option())
	for i := range 4 {
		if err := call(b, []error{nil, errDown}[min(i, 1)]); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if err := call(b, nil); !isOpen(err, breaker.Open) || b.State() != breaker.Open {
		t.Fatalf("3 failures of 4, Redis unreachable: %v (%v), want the local breaker open", err, b.State())
	}
	if s := b.Stats(); s.Link.Shared || s.Link.Fallbacks != 1 || s.Local.Failures != 3 || s.Local.Transitions != 1 {
		t.Errorf("Stats = %+v; want local, one fallback, the fallback tripped by 3 failures", s)
	}
}
