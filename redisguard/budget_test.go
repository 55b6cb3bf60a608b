package redisguard

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
)

// step is one call of a scripted sequence: its attempt number and how it
// ends (nil: a success).
type step struct {
	attempt int
	err     error
	aband   bool
}

// TestBudgetMatchesLocal runs scripted sequences through one shared
// budget and through budget.NewTokenBucket side by side: the same
// admissions, and the same count once what the instance owes is counted.
func TestBudgetMatchesLocal(t *testing.T) {
	addr := needRedis(t)
	fail := func(n int) []step {
		s := make([]step, n)
		for i := range s {
			s[i] = step{attempt: 1, err: errDown}
		}
		return s
	}
	cat := func(parts ...[]step) (out []step) {
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name  string
		max   float64
		ratio float64
		steps []step
	}{
		{"grpc_example", 10, 0.1, cat(fail(5), []step{{attempt: 2}, {attempt: 1}, {attempt: 2}, {attempt: 2, err: errDown}})},
		{"retries_charged_then_refunded", 10, 0.1, []step{{attempt: 2}, {attempt: 3}, {attempt: 2, err: errDown}, {attempt: 2, aband: true}, {attempt: 1}}},
		{"fractions", 3, 0.25, cat(fail(2), []step{{attempt: 2}, {attempt: 1}, {attempt: 1}, {attempt: 2}, {attempt: 1, err: errDown}, {attempt: 2}})},
		{"empty_and_refill", 4, 1.5, cat(fail(6), []step{{attempt: 2}, {attempt: 1}, {attempt: 2}, {attempt: 1}, {attempt: 2}, {attempt: 2, err: errDown}})},
		{"tiny_capacity", 0.5, 0.001, []step{{attempt: 2, err: errDown}, {attempt: 2}, {attempt: 1}, {attempt: 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newVirtual()
			shared := NewTokenBucket(newClient(t, addr), name(t), WithBudget(budget.WithMaxTokens(tt.max)), WithBudget(budget.WithTokenRatio(tt.ratio)), generous, v.option())
			local := budget.NewTokenBucket(budget.WithMaxTokens(tt.max), budget.WithTokenRatio(tt.ratio))
			for i, s := range tt.steps {
				c := guard.Call{Attempt: s.attempt}
				ps, errS := shared.Allow(bg, c)
				pl, errL := local.Allow(bg, c)
				if !errors.Is(errS, errL) || (errS == nil) != (errL == nil) {
					t.Fatalf("step %d %+v: shared Allow = %v, local %v", i, s, errS, errL)
				}
				if errS == nil {
					o := guard.Outcome{Err: s.err, Abandoned: s.aband}
					shared.Record(ps, o)
					local.Record(pl, o)
				}
				st := shared.Stats()
				if got, want := min(st.Tokens+st.Owed, tt.max), local.Stats().Tokens; !near(got, want) {
					t.Fatalf("step %d %+v: shared count %v (+%v owed), local %v", i, s, st.Tokens, st.Owed, want)
				}
				v.advance(time.Second) // past the staleness: every retry asks the server
			}
			mustShared(t, shared)
		})
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestBudgetFleetLimitIsHard has two instances, with many goroutines
// each, ask for retries at once in an outage: the charge at admission lets
// exactly ⌈maxTokens/2⌉ through, as one budget alone would.
func TestBudgetFleetLimitIsHard(t *testing.T) {
	addr := needRedis(t)
	n := name(t)
	instances := []*Budget{
		NewTokenBucket(newClient(t, addr), n, WithBudget(budget.WithMaxTokens(20)), WithStaleness(0), generous),
		NewTokenBucket(newClient(t, addr), n, WithBudget(budget.WithMaxTokens(20)), WithStaleness(0), generous),
	}
	if admitted := retriesAdmitted(t, instances, true); admitted != 10 {
		t.Errorf("%d retries admitted, want exactly 10 of a 20-token budget", admitted)
	}
}

// TestBudgetRoundTrips counts what each kind of call costs.
func TestBudgetRoundTrips(t *testing.T) {
	addr := needRedis(t)
	v := newVirtual()
	b := NewTokenBucket(newClient(t, addr), name(t), WithBudget(budget.WithMaxTokens(4)), generous, v.option())
	steps := []struct {
		what string
		do   func() error
		want uint64
	}{
		{"first attempt, Allow", func() error { _, err := b.Allow(bg, first); return err }, 0},
		{"first attempt, Record success", func() error { b.Record(guard.Permit{}, guard.Outcome{}); return nil }, 1},
		{"first attempt, Record failure", func() error { b.Record(guard.Permit{}, guard.Outcome{Err: errDown}); return nil }, 1},
		{"first attempt, Record abandoned", func() error { b.Record(guard.Permit{}, guard.Outcome{Abandoned: true}); return nil }, 0},
		{"retry, Allow and Record failure", func() error {
			p, err := b.Allow(bg, retry)
			b.Record(p, guard.Outcome{Err: errDown})
			return err
		}, 1},
		{"retry refused, on the fresh count", func() error {
			if _, err := b.Allow(bg, retry); !errors.Is(err, budget.ErrBudgetExhausted) {
				return fmt.Errorf("Allow = %v, want ErrBudgetExhausted", err)
			}
			return nil
		}, 0},
		{"retry refused, the count stale", func() error {
			v.advance(DefaultStaleness)
			if _, err := b.Allow(bg, retry); !errors.Is(err, budget.ErrBudgetExhausted) {
				return fmt.Errorf("Allow = %v, want ErrBudgetExhausted", err)
			}
			return nil
		}, 1},
	}
	for _, s := range steps {
		wantRoundTrips(t, b, s.what, s.want, s.do)
	}
	mustShared(t, b)
}

// TestBudgetOwedRefundSent: a retry that succeeds owes its token and the
// ratio, and the next round trip sends them.
func TestBudgetOwedRefundSent(t *testing.T) {
	addr := needRedis(t)
	b := NewTokenBucket(newClient(t, addr), name(t), WithBudget(budget.WithMaxTokens(10)), WithBudget(budget.WithTokenRatio(0.5)), generous)
	b.Record(guard.Permit{}, guard.Outcome{Err: errDown}) // 9
	p, err := b.Allow(bg, retry)                          // charged: 8
	if err != nil {
		t.Fatal(err)
	}
	b.Record(p, guard.Outcome{}) // owes 1.5
	if s := b.Stats(); s.Tokens != 8 || s.Owed != 1.5 {
		t.Fatalf("after a successful retry: %v tokens, %v owed; want 8 and 1.5", s.Tokens, s.Owed)
	}
	b.Record(guard.Permit{}, guard.Outcome{Err: errDown}) // 8 + 1.5 - 1
	if s := b.Stats(); s.Tokens != 8.5 || s.Owed != 0 {
		t.Fatalf("after the next round trip: %v tokens, %v owed; want 8.5 and 0", s.Tokens, s.Owed)
	}
}

// TestBudgetKeyExpires: the count lives under the guard's hash tag, with
// a TTL, and a full bucket keeps no key.
func TestBudgetKeyExpires(t *testing.T) {
	addr := needRedis(t)
	n := name(t)
	b := NewTokenBucket(newClient(t, addr), n, WithBudget(budget.WithMaxTokens(2)), WithBudget(budget.WithTokenRatio(1)), WithTTL(time.Minute), generous)
	a := admin(t, addr)
	key := "backoff:{" + n + "}:tokens"
	b.Record(guard.Permit{}, guard.Outcome{Err: errDown})
	ttl, err := a.PTTL(bg, key).Result()
	if err != nil || ttl <= 0 || ttl > time.Minute {
		t.Fatalf("PTTL %s = %v, %v; want in (0, 1m]", key, ttl, err)
	}
	b.Record(guard.Permit{}, guard.Outcome{}) // full again
	if n, err := a.Exists(bg, key).Result(); err != nil || n != 0 {
		t.Fatalf("a full bucket: EXISTS %s = %d, %v; want 0", key, n, err)
	}
}

// TestBudgetClassifier: WithIsFailure decides what takes a token; a panic
// in it counts the call neither way, refunds a retry, and goes on.
func TestBudgetClassifier(t *testing.T) {
	addr := needRedis(t)
	errBad := errors.New("bad request")
	errPanic := errors.New("classify me and panic")
	b := NewTokenBucket(newClient(t, addr), name(t), generous, WithBudget(budget.WithIsFailure(func(err error) bool {
		if err == errPanic {
			panic("classifier")
		}
		return err != errBad
	})))
	b.Record(guard.Permit{}, guard.Outcome{Err: errBad})
	if got := b.Stats().Link.RoundTrips; got != 0 {
		t.Fatalf("an error that does not count made %d round trips", got)
	}
	b.Record(guard.Permit{}, guard.Outcome{Err: errDown})
	p, err := b.Allow(bg, retry)
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r := recover(); r != "classifier" {
				t.Errorf("recovered %v, want the classifier's panic", r)
			}
		}()
		b.Record(p, guard.Outcome{Err: errPanic})
	}()
	if s := b.Stats(); s.Tokens+s.Owed != 9 {
		t.Errorf("after a panicking classifier: %v tokens + %v owed, want 9: the retry refunded", s.Tokens, s.Owed)
	}
}

// TestBudgetInPolicy: a refused retry stops the retry stage with the
// budget's error as Cause and the last error kept.
func TestBudgetInPolicy(t *testing.T) {
	addr := needRedis(t)
	b := NewTokenBucket(newClient(t, addr), name(t), WithBudget(budget.WithMaxTokens(4)), generous)
	p := policy.New(
		policy.Retry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(10)),
		policy.Guard(b),
	)
	attempts := 0
	err := p.DoErr(bg, func(context.Context) error { attempts++; return errDown })
	var e *backoff.Error
	if !errors.As(err, &e) || !errors.Is(e.Cause, budget.ErrBudgetExhausted) || e.LastErr != errDown {
		t.Fatalf("DoErr = %v, want Cause ErrBudgetExhausted and LastErr %v", err, errDown)
	}
	if attempts != 2 { // 4 → 3 → retry charged to 2: no longer above half
		t.Errorf("%d attempts, want 2", attempts)
	}
}

// TestBudgetFirstAttemptAllocates nothing: Allow of a first attempt
// makes no round trip.
func TestBudgetFirstAttemptAllocatesNothing(t *testing.T) {
	b := NewTokenBucket(newClient(t, "127.0.0.1:1"), name(t))
	if n := testing.AllocsPerRun(100, func() { _, _ = b.Allow(bg, first) }); n != 0 {
		t.Errorf("Allow of a first attempt: %v allocations, want 0", n)
	}
}
