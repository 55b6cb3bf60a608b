package redisguard

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// hooks records what the fallback hooks were told.
type hooks struct {
	mu        sync.Mutex
	fallbacks []error
	recovered int
}

func (h *hooks) options() []Option {
	return []Option{
		WithOnFallback(func(err error) { h.mu.Lock(); h.fallbacks = append(h.fallbacks, err); h.mu.Unlock() }),
		WithOnRecover(func() { h.mu.Lock(); h.recovered++; h.mu.Unlock() }),
	}
}

func (h *hooks) counts() (int, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.fallbacks), h.recovered
}

// faultClient is a client of addr that the test closes itself, before it
// looks for goroutines left behind.
func faultClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true, MaxRetries: -1})
}

// TestRedisStopped stops the server in the middle of a run: the guards
// turn to their local fallbacks at the first failed round trip, say so
// once, never fail a call for it, try Redis once per retry interval, and
// return to the shared state when the server is back.
func TestRedisStopped(t *testing.T) {
	s := ownServer(t)
	v := newVirtual()
	var hb, hk hooks
	cb, ck := faultClient(s.addr), faultClient(s.addr)
	opts := []Option{generous, v.option(), WithRetryInterval(time.Second)}
	b := NewTokenBucket(cb, name(t), append(append(opts, hb.options()...), WithBudget(budget.WithMaxTokens(4)))...)
	k := NewBreaker(ck, name(t), append(append(opts, hk.options()...), WithBreaker(breaker.WithConsecutiveFailures(2)))...)

	b.Record(guard.Permit{}, guard.Outcome{}) // shared: one round trip each
	warmK := call(k, nil)
	if warmK != nil {
		t.Fatal(warmK)
	}
	mustShared(t, b)
	mustShared(t, k)

	s.stop()

	b.Record(guard.Permit{}, guard.Outcome{Err: errDown}) // fails: the local budget counts it (4 → 3)
	p, err := b.Allow(bg, retry)
	if err != nil || p.Token&localBit == 0 {
		t.Fatalf("budget, Redis down: Allow = %+v, %v; want a retry admitted by the local budget", p, err)
	}
	b.Record(p, guard.Outcome{Err: errDown}) // 3 → 2: no longer above half
	if _, err := b.Allow(bg, retry); !errors.Is(err, budgetExhausted) {
		t.Fatalf("budget, Redis down: Allow = %v, want the local budget's refusal", err)
	}
	for range 2 {
		if err := call(k, errDown); err != nil {
			t.Fatalf("breaker, Redis down: %v", err)
		}
	}
	if err := call(k, nil); !isOpen(err, breaker.Open) {
		t.Fatalf("breaker, Redis down, two failures: %v, want the local breaker open", err)
	}
	for _, g := range []any{b, k} {
		l := statsLink(g)
		if l.Shared || l.Fallbacks != 1 || l.LocalDecisions == 0 {
			t.Errorf("%T, Redis down: %+v; want local, one fallback", g, l)
		}
		if local, f, r := g.(fallbacker).Fallback(); !local || f != 1 || r != 0 {
			t.Errorf("%T, Redis down: Fallback() = %v, %d, %d; want true, 1, 0", g, local, f, r)
		}
	}
	before := roundTrips(b) + roundTrips(k)
	for range 10 {
		b.Record(guard.Permit{}, guard.Outcome{})
		call(k, nil)
	}
	if got := roundTrips(b) + roundTrips(k) - before; got != 0 {
		t.Errorf("within the retry interval: %d round trips, want 0", got)
	}
	if n, _ := hb.counts(); n != 1 {
		t.Errorf("budget: the fallback hook ran %d times, want 1", n)
	}
	if n, _ := hk.counts(); n != 1 {
		t.Errorf("breaker: the fallback hook ran %d times, want 1", n)
	}

	s.restart(t)
	v.advance(time.Second)
	b.Record(guard.Permit{}, guard.Outcome{})
	if err := call(k, nil); err != nil {
		t.Fatalf("breaker, Redis back: %v, want the shared state (closed)", err)
	}
	for _, g := range []any{b, k} {
		if l := statsLink(g); !l.Shared || l.Recoveries != 1 {
			t.Errorf("%T, Redis back: %+v; want shared, one recovery", g, l)
		}
		if local, f, r := g.(fallbacker).Fallback(); local || f != 1 || r != 1 {
			t.Errorf("%T, Redis back: Fallback() = %v, %d, %d; want false, 1, 1", g, local, f, r)
		}
	}
	if _, r := hb.counts(); r != 1 {
		t.Errorf("budget: the recovery hook ran %d times, want 1", r)
	}
	cb.Close()
	ck.Close()
	s.stop()
	goleak.VerifyNone(t, servers, spawner)
}

// servers is the goroutine of the tests' own redis-server, which reads
// its output: with spawner, the only ones a test may leave running.
var servers = goleak.IgnoreAnyFunction("github.com/herdsafe/backoff/redisguard.(*server).start.func1")

// spawner is the goroutine that forks the servers, which lives as long as
// the test process (see startProcess).
var spawner = goleak.IgnoreAnyFunction("github.com/herdsafe/backoff/redisguard.spawnLoop")

// TestRedisSlow pauses the server: a round trip gives up at the guard's
// timeout, and the local fallback decides, well before the pause ends.
// The pause is wall-clock time, kept to a few hundred milliseconds.
func TestRedisSlow(t *testing.T) {
	s := ownServer(t)
	const timeout = 50 * time.Millisecond
	v := newVirtual()
	var h hooks
	c := faultClient(s.addr)
	defer c.Close()
	opts := append(h.options(), WithTimeout(timeout), v.option())
	b := NewTokenBucket(c, name(t), opts...)
	k := NewBreaker(c, name(t), opts...)
	b.Record(guard.Permit{}, guard.Outcome{})
	call(k, nil)
	mustShared(t, b)
	mustShared(t, k)

	a := admin(t, s.addr)
	if err := a.Do(bg, "CLIENT", "PAUSE", 400, "ALL").Err(); err != nil {
		t.Fatal(err)
	}
	for _, g := range []guard.Guard{b, k} {
		v.advance(time.Second) // the breaker's view stale, the link due
		start := time.Now()
		_, err := g.Allow(bg, retry)
		took := time.Since(start)
		if err != nil {
			t.Errorf("%T: Allow = %v, want the local fallback's admission", g, err)
		}
		if took > timeout+250*time.Millisecond {
			t.Errorf("%T: Allow took %v with a timeout of %v", g, took, timeout)
		}
		t.Logf("%T: Allow returned in %v (timeout %v, server paused for 400ms)", g, took, timeout)
	}
	if n, _ := h.counts(); n != 2 || !isTimeout(h.fallbacks[0]) || !isTimeout(h.fallbacks[1]) {
		t.Errorf("fallbacks %v, want two timeouts", h.fallbacks)
	}
	if err := a.Ping(bg).Err(); err != nil { // returns when the pause ends
		t.Fatal(err)
	}
	v.advance(time.Second)
	b.Record(guard.Permit{}, guard.Outcome{})
	if l := b.Stats().Link; !l.Shared || l.Recoveries != 1 {
		t.Errorf("after the pause: %+v, want shared again", l)
	}
}

// TestScriptFlushed: a server that forgot the script (SCRIPT FLUSH, a
// restart, a failover) gets it again with EVAL, once, and the decisions
// go on from the same count.
func TestScriptFlushed(t *testing.T) {
	s := ownServer(t)
	b := NewTokenBucket(newClient(t, s.addr), name(t), WithBudget(budget.WithMaxTokens(10)), generous)
	for range 3 {
		b.Record(guard.Permit{}, guard.Outcome{Err: errDown})
	}
	if got := b.Stats().Link.Reloads; got != 1 {
		t.Fatalf("a new server: %d reloads, want 1 (the first EVALSHA)", got)
	}
	if err := admin(t, s.addr).ScriptFlush(bg).Err(); err != nil {
		t.Fatal(err)
	}
	b.Record(guard.Permit{}, guard.Outcome{Err: errDown}) // 7 → 6
	p, err := b.Allow(bg, retry)                          // 6 > 5: admitted, charged to 5
	if err != nil {
		t.Fatalf("after the flush: %v, want a retry admitted", err)
	}
	b.Record(p, guard.Outcome{Err: errDown})
	if _, err := b.Allow(bg, retry); !errors.Is(err, budgetExhausted) {
		t.Fatalf("5 tokens: %v, want ErrBudgetExhausted", err)
	}
	st := b.Stats()
	if st.Tokens != 5 || st.Link.Reloads != 2 {
		t.Errorf("after the flush: %v tokens, %d reloads; want 5 and 2", st.Tokens, st.Link.Reloads)
	}
	mustShared(t, b)
}

// TestRedisUnreachable: with no server at all, every call is decided
// locally from the first failed round trip on, with no error for Redis,
// and one call of all those that come tries Redis again each retry
// interval.
func TestRedisUnreachable(t *testing.T) {
	v := newVirtual()
	var h hooks
	c := faultClient("127.0.0.1:1") // nothing listens on port 1
	defer c.Close()
	b := NewTokenBucket(c, name(t), append(h.options(), v.option())...)
	concurrently := func() {
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 50 {
					p, err := b.Allow(bg, retry)
					if err == nil {
						b.Record(p, guard.Outcome{})
					} else if !errors.Is(err, budgetExhausted) {
						t.Errorf("Allow = %v", err)
					}
				}
			}()
		}
		wg.Wait()
	}
	if _, err := b.Allow(bg, retry); err != nil {
		t.Fatalf("the first call: %v, want the local budget's admission", err)
	}
	concurrently()
	l := b.Stats().Link
	if l.RoundTrips != 1 || l.Fallbacks != 1 || l.Shared || l.LocalDecisions != 400 {
		t.Errorf("401 calls, Redis unreachable: %+v; want one round trip, one fallback, 400 local decisions", l)
	}
	v.advance(DefaultRetryInterval)
	concurrently()
	if got := b.Stats().Link.RoundTrips; got != 2 {
		t.Errorf("400 calls after the retry interval: %d round trips in all, want 2", got)
	}
	if n, _ := h.counts(); n != 1 {
		t.Errorf("the fallback hook ran %d times, want 1", n)
	}
}

// isTimeout reports whether err says a round trip ran out of time.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// statsLink returns a guard's Link.
// fallbacker is what the telemetry modules' ObserveShared reads.
type fallbacker interface {
	Fallback() (local bool, fallbacks, recoveries uint64)
}

func statsLink(g any) Link {
	switch g := g.(type) {
	case *Budget:
		return g.Stats().Link
	case *Breaker:
		return g.Stats().Link
	}
	return Link{}
}
