package redisguard

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
	"github.com/redis/go-redis/v9"
)

// TestBadConfiguration: every bad setting is reported by Validate, named,
// matching backoff.ErrInvalidConfiguration, and makes every Allow refuse
// with it; a Policy with such a guard fails before it runs anything.
func TestBadConfiguration(t *testing.T) {
	good := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true})
	defer good.Close()
	deaf := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer deaf.Close()
	deafCluster := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}})
	defer deafCluster.Close()
	var nilClient *redis.Client
	tests := []struct {
		name   string
		client redis.Scripter
		guard  string // "budget" (a token bucket), "ratio" or "breaker"
		gname  string
		opts   []Option
		want   string
	}{
		{"nil client", nil, "budget", "x", nil, "client is nil"},
		{"nil *redis.Client", nilClient, "breaker", "x", nil, "client is nil"},
		{"deadlines ignored", deaf, "budget", "x", nil, "ContextTimeoutEnabled"},
		{"cluster deadlines ignored", deafCluster, "breaker", "x", nil, "ContextTimeoutEnabled"},
		{"empty name", good, "budget", "", nil, "name is empty"},
		{"brace in name", good, "breaker", "a{b", nil, "brace"},
		{"nil option", good, "budget", "x", []Option{nil}, "NewTokenBucket was given a nil Option"},
		{"zero timeout", good, "budget", "x", []Option{WithTimeout(0)}, "WithTimeout"},
		{"negative retry interval", good, "breaker", "x", []Option{WithRetryInterval(-time.Second)}, "WithRetryInterval"},
		{"negative staleness", good, "budget", "x", []Option{WithStaleness(-1)}, "WithStaleness"},
		{"tiny TTL", good, "budget", "x", []Option{WithTTL(time.Microsecond)}, "WithTTL"},
		{"empty prefix", good, "budget", "x", []Option{WithKeyPrefix("")}, "WithKeyPrefix"},
		{"brace in prefix", good, "breaker", "x", []Option{WithKeyPrefix("}")}, "WithKeyPrefix"},
		{"nil fallback hook", good, "budget", "x", []Option{WithOnFallback(nil)}, "WithOnFallback"},
		{"nil recovery hook", good, "budget", "x", []Option{WithOnRecover(nil)}, "WithOnRecover"},
		{"nil clock", good, "breaker", "x", []Option{WithBreaker(breaker.WithClock(nil))}, "breaker: WithClock"},
		{"nil budget clock", good, "budget", "x", []Option{WithBudget(budget.WithClock(nil))}, "budget: WithClock"},
		{"zero tokens", good, "budget", "x", []Option{WithBudget(budget.WithMaxTokens(0))}, "WithMaxTokens"},
		{"NaN ratio", good, "budget", "x", []Option{WithBudget(budget.WithTokenRatio(math.NaN()))}, "WithTokenRatio"},
		{"nil failure classifier", good, "budget", "x", []Option{WithBudget(budget.WithIsFailure(nil))}, "budget: WithIsFailure"},
		{"zero failures", good, "breaker", "x", []Option{WithBreaker(breaker.WithConsecutiveFailures(0))}, "WithConsecutiveFailures"},
		{"negative open duration", good, "breaker", "x", []Option{WithBreaker(breaker.WithOpenDuration(-time.Second))}, "WithOpenDuration"},
		{"probes fewer than successes", good, "breaker", "x", []Option{WithBreaker(breaker.WithHalfOpen(1, 2))}, "WithHalfOpen"},
		{"nil IsFailure", good, "breaker", "x", []Option{WithBreaker(breaker.WithIsFailure(nil))}, "breaker: WithIsFailure"},
		{"nil state change", good, "breaker", "x", []Option{WithBreaker(breaker.WithStateChange(nil))}, "WithStateChange"},
		{"tiny probe timeout", good, "breaker", "x", []Option{WithProbeTimeout(time.Microsecond)}, "WithProbeTimeout"},
		{"a budget's options to a breaker", good, "breaker", "x", []Option{WithBudget(budget.WithMaxTokens(5))}, "WithBudget applies to a budget"},
		{"a breaker's options to a budget", good, "budget", "x", []Option{WithBreaker(breaker.WithOpenDuration(time.Second))}, "WithBreaker applies to a breaker"},
		{"a ratio budget's option", good, "budget", "x", []Option{WithBudget(budget.WithWindow(time.Second))}, "budget: WithWindow applies to a ratio budget"},
		{"a token bucket's option to a ratio budget", good, "ratio", "x", []Option{WithBudget(budget.WithMaxTokens(3))}, "budget: WithMaxTokens applies to a token bucket"},
		{"a classifier to a ratio budget", good, "ratio", "x", []Option{WithBudget(budget.WithIsFailure(func(error) bool { return true }))}, "budget: WithIsFailure applies to a token bucket"},
		{"a short window", good, "ratio", "x", []Option{WithBudget(budget.WithWindow(time.Millisecond))}, "budget: WithWindow was given a window of 1ms"},
		{"NaN retry ratio", good, "ratio", "x", []Option{WithBudget(budget.WithRetryRatio(math.NaN()))}, "budget: WithRetryRatio"},
		{"a window offset to a shared ratio budget", good, "ratio", "x", []Option{WithBudget(budget.WithWindowOffset(time.Second))}, "budget.WithWindowOffset(1s), which a shared ratio budget cannot use"},
		{"negative reserve", good, "ratio", "x", []Option{WithBudget(budget.WithMinRetriesPerSecond(-1))}, "budget: WithMinRetriesPerSecond"},
		{"nil ratio clock", good, "ratio", "x", []Option{WithBudget(budget.WithClock(nil))}, "budget: WithClock"},
		{"a breaker's options to a ratio budget", good, "ratio", "x", []Option{WithBreaker(breaker.WithHalfOpen(1, 1))}, "WithBreaker applies to a breaker"},
		{"a probe timeout to a ratio budget", good, "ratio", "x", []Option{WithProbeTimeout(time.Second)}, "WithProbeTimeout applies to a breaker"},
		{"nil ratio option", good, "ratio", "x", []Option{nil}, "NewRatio was given a nil Option"},
		{"ratio without a client", nil, "ratio", "x", nil, "client is nil"},
		{"ratio, brace in name", good, "ratio", "}", nil, "brace"},
		{"a growing open duration", good, "breaker", "x", []Option{WithBreaker(breaker.WithOpenBackOff(backoff.NewExponentialBackOff()))}, "breaker.WithOpenBackOff, which a shared breaker does not support"},
		{"a growing open duration with a rate", good, "breaker", "x", []Option{WithBreaker(breaker.WithFailureRate(0.5, 1, 10), breaker.WithOpenBackOff(backoff.NewExponentialBackOff()))}, "breaker.WithOpenBackOff"},
		{"a zero failure rate", good, "breaker", "x", []Option{WithBreaker(breaker.WithFailureRate(0, 1, 10))}, "breaker: WithFailureRate was given the rate 0"},
		{"a window shorter than its minimum", good, "breaker", "x", []Option{WithBreaker(breaker.WithFailureRate(0.5, 20, 10))}, "breaker: WithFailureRate was given a window of 10 calls"},
		{"a NaN rate over time", good, "breaker", "x", []Option{WithBreaker(breaker.WithFailureRateOver(math.NaN(), 1, time.Minute))}, "breaker: WithFailureRateOver was given the rate NaN"},
		{"a period too short", good, "breaker", "x", []Option{WithBreaker(breaker.WithFailureRateOver(0.5, 1, time.Millisecond))}, "breaker: WithFailureRateOver was given the period 1ms"},
		{"slow calls without a rate", good, "breaker", "x", []Option{WithBreaker(breaker.WithSlowCalls(time.Second, 0.5))}, "breaker: WithSlowCalls needs a failure-rate rule"},
		{"slow calls of a bad rate", good, "breaker", "x", []Option{WithBreaker(breaker.WithFailureRate(0.5, 1, 10), breaker.WithSlowCalls(time.Second, 2))}, "breaker: WithSlowCalls was given the rate 2"},
		{"slow calls too fast to time", good, "breaker", "x", []Option{WithBreaker(breaker.WithFailureRateOver(0.5, 1, time.Second), breaker.WithSlowCalls(time.Nanosecond, 0.5))}, "breaker: WithSlowCalls was given the duration 1ns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g guardtest.Guard
			if tt.guard == "budget" || tt.guard == "ratio" {
				b := NewTokenBucket(tt.client, tt.gname, tt.opts...)
				if tt.guard == "ratio" {
					b = NewRatio(tt.client, tt.gname, tt.opts...)
				}
				g = b
				if s := b.Stats(); s != (BudgetStats{}) {
					t.Errorf("Stats = %+v, want zero", s)
				}
			} else {
				b := NewBreaker(tt.client, tt.gname, tt.opts...)
				g = b
				if b.State() != breaker.Open {
					t.Errorf("State = %v, want open", b.State())
				}
			}
			guardtest.Refuses(t, g, guardtest.Invalid(t, g, tt.want))
			g.Record(guard.Permit{}, guard.Outcome{Err: errDown}) // ignored
		})
	}
}

// TestNoMistakeMasksAnother: the client's, the name's and the options'
// mistakes are all reported, the local guard's options as the local
// package words them.
func TestNoMistakeMasksAnother(t *testing.T) {
	deaf := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer deaf.Close()
	budgetErr := NewTokenBucket(deaf, "a{b", WithTTL(0), WithBudget(budget.WithMaxTokens(math.NaN()))).Validate()
	breakerErr := NewBreaker(deaf, "", WithTTL(0), WithBreaker(breaker.WithHalfOpen(1, 2))).Validate()
	for _, c := range []struct {
		err  error
		want []string
	}{
		{budgetErr, []string{"ContextTimeoutEnabled", "brace", "redisguard: WithTTL", "budget: WithMaxTokens(NaN)"}},
		{breakerErr, []string{"ContextTimeoutEnabled", "name is empty", "redisguard: WithTTL", "breaker: WithHalfOpen"}},
	} {
		for _, w := range c.want {
			if !errors.Is(c.err, backoff.ErrInvalidConfiguration) || !strings.Contains(c.err.Error(), w) {
				t.Errorf("Validate = %v, want %q named", c.err, w)
			}
		}
	}
}

// TestZeroGuards: zero and nil guards refuse with a configuration error
// rather than panic.
func TestZeroGuards(t *testing.T) {
	var nb *Budget
	guards := []interface {
		guard.Guard
		Validate() error
	}{&Budget{}, nb, &Breaker{}}
	for _, g := range guards {
		if err := g.Validate(); !errors.Is(err, backoff.ErrInvalidConfiguration) {
			t.Errorf("%T: Validate = %v", g, err)
		}
		if _, err := g.Allow(bg, first); !errors.Is(err, backoff.ErrInvalidConfiguration) {
			t.Errorf("%T: Allow = %v", g, err)
		}
		g.Record(guard.Permit{}, guard.Outcome{})
	}
	if err := nb.Run(bg, func(context.Context) error { return nil }); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("nil Budget: Run = %v", err)
	}
}

// TestKeys: every key of a guard carries the hash tag of its name, so
// that Redis Cluster keeps them in one slot.
func TestKeys(t *testing.T) {
	tests := []struct {
		name, prefix, suffix, want string
	}{
		{"payments", DefaultKeyPrefix, "tokens", "backoff:{payments}:tokens"},
		{"payments", DefaultKeyPrefix, "breaker", "backoff:{payments}:breaker"},
		{"a:b", "svc", "tokens", "svc:{a:b}:tokens"},
	}
	for _, tt := range tests {
		c := newConfig(budgetKind, "NewTokenBucket", tt.name, []Option{WithKeyPrefix(tt.prefix)})
		if got := c.key(tt.suffix); got != tt.want {
			t.Errorf("key(%q, %q, %q) = %q, want %q", tt.name, tt.prefix, tt.suffix, got, tt.want)
		}
	}
}

// Allow refuses a nil context, on both guards, valid or not, first
// attempt or retry, as every guard of the module does, with the same
// words: an error matching backoff.ErrInvalidConfiguration, before any
// round trip or fallback.
func TestAllowNilContext(t *testing.T) {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true})
	defer client.Close()
	tests := []struct {
		name string
		g    guard.Guard
	}{
		{"Breaker", NewBreaker(client, "x")},
		{"Breaker_invalid", NewBreaker(nil, "x")},
		{"Breaker_zero", &Breaker{}},
		{"Breaker_nil", (*Breaker)(nil)},
		{"TokenBucket", NewTokenBucket(client, "x")},
		{"TokenBucket_invalid", NewTokenBucket(client, "")},
		{"TokenBucket_zero", &Budget{}},
		{"TokenBucket_nil", (*Budget)(nil)},
		{"Ratio", NewRatio(client, "x")},
		{"Ratio_invalid", NewRatio(client, "x", WithTTL(0))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			guardtest.RefusesNilContext(t, tt.g, "redisguard")
		})
	}
	for _, i := range []int{0, 4, 8} { // the valid guards
		if n := roundTrips(tests[i].g); n != 0 {
			t.Errorf("%s: %d round trips after Allow(nil), want none", tests[i].name, n)
		}
	}
}
