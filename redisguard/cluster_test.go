package redisguard

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/redis/go-redis/v9"
)

// clusterGuard is a guard of the cluster tests: how to make one, what to
// do with it so that it writes every key it has, and those keys' suffixes.
type clusterGuard struct {
	kind     string
	make     func(c redis.Scripter, name string) guard.Guard
	exercise func(t *testing.T, g guard.Guard, v *virtual)
	keys     []string
}

// clusterGuards are every guard of the package, each rule of the breaker.
func clusterGuards(v *virtual) []clusterGuard {
	opts := []Option{generous, v.option(), WithStaleness(0)}
	failures := func(t *testing.T, g guard.Guard, v *virtual) {
		for range 6 {
			p, err := g.Allow(bg, first)
			if err != nil {
				return // open: it has written its state
			}
			v.advance(2 * time.Second) // slow, for the slow-call rule
			g.Record(p, guard.Outcome{Err: errDown})
		}
	}
	return []clusterGuard{
		{"token bucket", func(c redis.Scripter, n string) guard.Guard {
			return NewTokenBucket(c, n, append(opts, WithBudget(budget.WithMaxTokens(4)))...)
		}, func(t *testing.T, g guard.Guard, v *virtual) {
			g.Record(guard.Permit{}, guard.Outcome{Err: errDown})
			if p, err := g.Allow(bg, retry); err == nil {
				g.Record(p, guard.Outcome{})
			}
		}, []string{"tokens"}},
		{"ratio budget", func(c redis.Scripter, n string) guard.Guard {
			return NewRatio(c, n, append(opts, WithBudget(budget.WithMinRetriesPerSecond(0), budget.WithRetryRatio(0.5)))...)
		}, func(t *testing.T, g guard.Guard, v *virtual) {
			for range 2 {
				g.Allow(bg, first)
			}
			if _, err := g.Allow(bg, retry); err != nil {
				t.Errorf("ratio budget: a retry after 2 first attempts: %v", err)
			}
		}, []string{"ratio"}},
		{"breaker, failures in a row", func(c redis.Scripter, n string) guard.Guard {
			return NewBreaker(c, n, append(opts, WithBreaker(breaker.WithConsecutiveFailures(3)))...)
		}, failures, []string{"breaker"}},
		{"breaker, failure rate of calls, slow calls", func(c redis.Scripter, n string) guard.Guard {
			return NewBreaker(c, n, append(opts, WithBreaker(breaker.WithFailureRate(0.5, 4, 10), breaker.WithSlowCalls(time.Second, 0.9)))...)
		}, func(t *testing.T, g guard.Guard, v *virtual) {
			for range 2 { // the window is written, and stays: the breaker does not trip
				p, _ := g.Allow(bg, first)
				g.Record(p, guard.Outcome{Err: errDown})
			}
			p, _ := g.Allow(bg, first)
			g.Record(p, guard.Outcome{Abandoned: true})
		}, []string{"breaker", "window"}},
		{"breaker, failure rate over time", func(c redis.Scripter, n string) guard.Guard {
			return NewBreaker(c, n, append(opts, WithBreaker(breaker.WithFailureRateOver(0.5, 4, time.Minute)))...)
		}, func(t *testing.T, g guard.Guard, v *virtual) {
			for range 2 {
				p, _ := g.Allow(bg, first)
				g.Record(p, guard.Outcome{Err: errDown})
			}
			p, _ := g.Allow(bg, first)
			g.Record(p, guard.Outcome{Abandoned: true})
		}, []string{"breaker", "window"}},
	}
}

// slotOwners returns, for the names, the address of the master that
// holds each one's hash slot.
func slotOwners(t *testing.T, c *redis.ClusterClient, names []string) map[string]string {
	t.Helper()
	shards, err := c.ClusterShards(bg).Result()
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]string{}
	for _, n := range names {
		slot, err := c.ClusterKeySlot(bg, n).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, sh := range shards {
			for _, r := range sh.Slots {
				if r.Start <= slot && slot <= r.End {
					for _, node := range sh.Nodes {
						if node.Role == "master" {
							owners[n] = fmt.Sprintf("%s:%d", node.IP, node.Port)
						}
					}
				}
			}
		}
	}
	return owners
}

// TestClusterKeysInOneSlot runs every guard on a Redis Cluster of three
// masters, through go-redis's ClusterClient, the guards spread over all
// three: each keeps every key it writes in the hash slot of its name's
// hash tag, on one master, and its scripts run there (a script whose keys
// were in different slots would fail with CROSSSLOT, and the guard fall
// back).
func TestClusterKeysInOneSlot(t *testing.T) {
	c := newClusterClient(t)
	v := newVirtual()
	guards := clusterGuards(v)

	// Names whose slots are on every master, in turn.
	var names []string
	used := map[string]bool{}
	for i := 0; len(names) < len(guards); i++ {
		if i > 1000 {
			t.Fatal("no names on every master")
		}
		n := fmt.Sprintf("%s.%d", name(t), i)
		owner := slotOwners(t, c, []string{n})[n]
		if !used[owner] || len(used) == clusterNodes {
			used[owner] = true
			names = append(names, n)
		}
	}
	owners := slotOwners(t, c, names)
	masters := map[string]bool{}
	for _, o := range owners {
		masters[o] = true
	}
	if len(masters) != clusterNodes {
		t.Fatalf("the guards are on %d masters, want all %d: %v", len(masters), clusterNodes, owners)
	}

	for i, cg := range guards {
		n := names[i]
		t.Run(strings.ReplaceAll(cg.kind, " ", "_"), func(t *testing.T) {
			g := cg.make(c, n)
			if err := g.(guard.Validator).Validate(); err != nil {
				t.Fatal(err)
			}
			cg.exercise(t, g, v)
			mustShared(t, g)

			// Every key of the guard, on every master.
			var mu sync.Mutex
			found := map[string]string{} // key: the master it is on
			err := c.ForEachMaster(bg, func(ctx context.Context, m *redis.Client) error {
				keys, err := m.Keys(ctx, DefaultKeyPrefix+":{"+n+"}:*").Result()
				mu.Lock()
				defer mu.Unlock()
				for _, k := range keys {
					found[k] = m.Options().Addr
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for k := range found {
				got = append(got, strings.TrimPrefix(k, DefaultKeyPrefix+":{"+n+"}:"))
			}
			sort.Strings(got)
			if strings.Join(got, ",") != strings.Join(cg.keys, ",") {
				t.Fatalf("the guard wrote the keys %v, want %v", got, cg.keys)
			}
			want, err := c.ClusterKeySlot(bg, n).Result()
			if err != nil {
				t.Fatal(err)
			}
			for k, addr := range found {
				slot, err := c.ClusterKeySlot(bg, k).Result()
				if err != nil || slot != want {
					t.Errorf("CLUSTER KEYSLOT %s = %d, %v; want %d, the slot of the name %q", k, slot, err, want, n)
				}
				if addr != owners[n] {
					t.Errorf("%s is on %s, want %s, the master of its slot", k, addr, owners[n])
				}
			}
			if l := statsLink(g); l.Errors != 0 || l.RoundTrips == 0 {
				t.Errorf("the guard's link: %+v; want round trips and no error", l)
			}
		})
	}
}

// A script given keys of two slots fails on a cluster with CROSSSLOT: the
// layout the guards keep to is what keeps them working there.
func TestClusterCrossSlotFails(t *testing.T) {
	c := newClusterClient(t)
	a, b := "backoff:{"+name(t)+".a}:breaker", "backoff:{"+name(t)+".b}:window"
	if slots := slotOwners(t, c, []string{name(t) + ".a", name(t) + ".b"}); slots[name(t)+".a"] == slots[name(t)+".b"] {
		t.Logf("both keys are on %s: CROSSSLOT all the same", slots[name(t)+".a"])
	}
	err := c.Eval(bg, "return redis.call('EXISTS', KEYS[1], KEYS[2])", []string{a, b}).Err()
	if err == nil || !strings.Contains(err.Error(), "CROSSSLOT") {
		t.Fatalf("a script on %s and %s: %v, want a CROSSSLOT error", a, b, err)
	}
}

// TestClusterFleet: the guards shared through a cluster behave as through
// one server, across instances with clients of their own.
func TestClusterFleet(t *testing.T) {
	v := newVirtual()
	ca, cb := newClusterClient(t), newClusterClient(t)
	opts := []Option{generous, v.option()}

	t.Run("token_bucket", func(t *testing.T) {
		n := name(t)
		a := NewTokenBucket(ca, n, append(opts, WithBudget(budget.WithMaxTokens(10)))...)
		b := NewTokenBucket(cb, n, append(opts, WithBudget(budget.WithMaxTokens(10)))...)
		for range 5 {
			a.Record(guard.Permit{}, guard.Outcome{Err: errDown})
		}
		if _, err := b.Allow(bg, retry); !errors.Is(err, budget.ErrBudgetExhausted) {
			t.Fatalf("b's retry after a's five failures: %v, want refused", err)
		}
	})
	t.Run("ratio", func(t *testing.T) {
		n := name(t)
		ro := append(opts, WithBudget(budget.WithMinRetriesPerSecond(0), budget.WithRetryRatio(0.5)), WithStaleness(0))
		a, b := NewRatio(ca, n, ro...), NewRatio(cb, n, ro...)
		for range 4 {
			a.Allow(bg, first)
		}
		for i := range 3 {
			if _, err := b.Allow(bg, retry); (err == nil) != (i < 2) {
				t.Fatalf("b's retry %d after a's 4 first attempts: %v", i, err)
			}
		}
	})
	for _, r := range []struct {
		name string
		rule breaker.Option
	}{
		{"breaker_in_a_row", breaker.WithConsecutiveFailures(4)},
		{"breaker_rate_of_calls", breaker.WithFailureRate(0.5, 4, 10)},
		{"breaker_rate_over_time", breaker.WithFailureRateOver(0.5, 4, time.Minute)},
	} {
		rule := r.rule
		t.Run(r.name, func(t *testing.T) {
			n := name(t)
			bo := append(opts, WithBreaker(rule, breaker.WithOpenDuration(time.Minute)))
			a, b := NewBreaker(ca, n, bo...), NewBreaker(cb, n, bo...)
			warm(t, a)
			warm(t, b)
			for i := 0; a.State() == breaker.Closed; i++ {
				if i == 10 {
					t.Fatalf("10 failures did not trip it: %+v", a.Stats())
				}
				if err := call([]*Breaker{a, b}[i%2], errDown); err != nil {
					t.Fatal(err)
				}
			}
			v.advance(DefaultStaleness)
			if err := call(b, nil); !isOpen(err, breaker.Open) {
				t.Fatalf("b: %v, want the fleet's breaker open", err)
			}
			v.advance(time.Minute)
			if err := call(b, nil); err != nil {
				t.Fatalf("b's probe: %v", err)
			}
			if got := b.State(); got != breaker.Closed {
				t.Fatalf("after the probe's success: %v, want closed", got)
			}
			mustShared(t, a)
			mustShared(t, b)
		})
	}
}
