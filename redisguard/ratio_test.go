package redisguard

import (
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/herdsafe/backoff/budget"
)

// alignSlot moves v's server clock to a millisecond past the start of a
// slot of width on the server of addr: the slots of the server's window
// and those of a local window made now then begin together (within the
// real time the test takes, which must be shorter than a slot: the tests
// take slots of a second).
func (v *virtual) alignSlot(t *testing.T, addr string, width time.Duration) {
	t.Helper()
	now, err := admin(t, addr).Time(bg).Result()
	if err != nil {
		t.Fatal(err)
	}
	at := now.Add(time.Duration(v.shift.Load()))
	off := time.Duration(at.UnixMicro()%width.Microseconds()) * time.Microsecond
	v.shift.Add(int64(width - off + time.Millisecond))
}

// ratioStep is a moment of a ratio budget's scripted traffic: the time
// that passes first, then first attempts, then retries.
type ratioStep struct {
	wait    time.Duration
	first   int
	retries int
}

// TestRatioMatchesLocal runs scripted traffic through one shared ratio
// budget and through budget.NewRatio side by side, on one virtual time:
// the same retries admitted and refused, one by one, and the same window.
// WithStaleness(0) makes every first attempt reach the server at once, as
// it reaches a local window.
func TestRatioMatchesLocal(t *testing.T) {
	addr := needRedis(t)
	tests := []struct {
		name  string
		opts  []budget.Option
		steps []ratioStep
	}{
		{"finagle_defaults", nil, []ratioStep{{0, 50, 120}, {time.Second, 5, 5}}},
		{"ratio_only", []budget.Option{budget.WithMinRetriesPerSecond(0), budget.WithRetryRatio(0.3)},
			[]ratioStep{{0, 10, 5}, {0, 10, 5}, {0, 3, 2}}},
		{"ratio_above_one", []budget.Option{budget.WithMinRetriesPerSecond(0), budget.WithRetryRatio(2.5)},
			[]ratioStep{{0, 4, 12}, {0, 1, 4}}},
		{"no_retries_at_all", []budget.Option{budget.WithMinRetriesPerSecond(0), budget.WithRetryRatio(0)},
			[]ratioStep{{0, 20, 3}}},
		{"reserve_only", []budget.Option{budget.WithMinRetriesPerSecond(0.3), budget.WithRetryRatio(0)},
			[]ratioStep{{0, 0, 5}, {5 * time.Second, 0, 2}, {10 * time.Second, 0, 5}}},
		{"window_slides", []budget.Option{budget.WithMinRetriesPerSecond(0), budget.WithRetryRatio(1)},
			[]ratioStep{
				{0, 5, 6},
				{5 * time.Second, 2, 3},
				{4500 * time.Millisecond, 0, 1},
				{time.Second, 0, 3},      // the first slot has left the window
				{5 * time.Second, 1, 3},  // so has the middle one
				{20 * time.Second, 0, 1}, // all forgotten
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newVirtual()
			v.alignSlot(t, addr, budget.DefaultWindow/10)
			local := budget.NewRatio(append([]budget.Option{budget.WithClock(v.mock)}, tt.opts...)...)
			shared := NewRatio(newClient(t, addr), name(t), WithBudget(tt.opts...), WithStaleness(0), generous, v.option())
			admitted, refused := 0, 0
			for i, s := range tt.steps {
				v.advance(s.wait)
				for range s.first {
					if _, err := shared.Allow(bg, first); err != nil {
						t.Fatalf("step %d: a first attempt: %v", i, err)
					}
					local.Allow(bg, first)
				}
				for j := range s.retries {
					_, errS := shared.Allow(bg, retry)
					_, errL := local.Allow(bg, retry)
					if (errS == nil) != (errL == nil) || errL != nil && !errors.Is(errS, budget.ErrBudgetExhausted) {
						t.Fatalf("step %d, retry %d: shared Allow = %v, local %v", i, j, errS, errL)
					}
					if errS == nil {
						admitted++
					} else {
						refused++
					}
				}
				if st, ls := shared.Stats(), local.Stats(); s.first+s.retries > 0 && (st.Requests != ls.Requests || st.Retries != ls.Retries) {
					t.Fatalf("step %d: the shared window holds %d first attempts and %d retries, the local one %d and %d",
						i, st.Requests, st.Retries, ls.Requests, ls.Retries)
				}
			}
			if admitted == 0 && tt.name != "no_retries_at_all" || refused == 0 {
				t.Errorf("%d admitted, %d refused: the script does not test both", admitted, refused)
			}
			mustShared(t, shared)
		})
	}
}

// TestRatioFleetLimitIsHard has two instances, with many goroutines each,
// ask for retries at once: the fleet's window admits exactly its
// allowance, as one budget alone would, whatever instance asks.
func TestRatioFleetLimitIsHard(t *testing.T) {
	addr := needRedis(t)
	n := name(t)
	opts := []Option{WithBudget(budget.WithMinRetriesPerSecond(0), budget.WithRetryRatio(0.5)), WithStaleness(0), generous}
	instances := []*Budget{NewRatio(newClient(t, addr), n, opts...), NewRatio(newClient(t, addr), n, opts...)}
	for i := range 20 { // 20 first attempts across the fleet: 10 retries
		instances[i%2].Allow(bg, first)
	}
	if got := retriesAdmitted(t, instances, false); got != 10 {
		t.Errorf("%d retries admitted, want exactly 10: half of the fleet's 20 first attempts", got)
	}
}

// TestRatioRoundTrips counts what each kind of call costs: first attempts
// are sent together, once per staleness period; a retry is one round trip,
// and a refusal on a fresh spent window none.
func TestRatioRoundTrips(t *testing.T) {
	addr := needRedis(t)
	v := newVirtual()
	b := NewRatio(newClient(t, addr), name(t), WithBudget(budget.WithMinRetriesPerSecond(0), budget.WithRetryRatio(0.1)), generous, v.option())
	steps := []struct {
		what   string
		do     func() error
		want   uint64
		unsent uint64
	}{
		{"the first first attempt: sent at once", func() error { _, err := b.Allow(bg, first); return err }, 1, 0},
		{"9 more within the staleness: counted", func() error {
			for range 9 {
				if _, err := b.Allow(bg, first); err != nil {
					return err
				}
			}
			return nil
		}, 0, 9},
		{"a retry: one round trip, which sends them", func() error { _, err := b.Allow(bg, retry); return err }, 1, 0},
		{"a retry refused on the fresh window", func() error {
			if _, err := b.Allow(bg, retry); !errors.Is(err, budget.ErrBudgetExhausted) {
				return errors.New("admitted, want ErrBudgetExhausted")
			}
			return nil
		}, 0, 0},
		{"a first attempt, then a retry: 11 first attempts allow no more, refused on the fresh window", func() error {
			b.Allow(bg, first)
			if _, err := b.Allow(bg, retry); !errors.Is(err, budget.ErrBudgetExhausted) {
				return errors.New("admitted, want ErrBudgetExhausted")
			}
			return nil
		}, 0, 1},
		{"9 more first attempts, then a retry: 20 may allow it, so it asks", func() error {
			for range 9 {
				b.Allow(bg, first)
			}
			_, err := b.Allow(bg, retry)
			return err
		}, 1, 0},
		{"past the staleness, a first attempt sends", func() error {
			v.advance(DefaultStaleness)
			_, err := b.Allow(bg, first)
			return err
		}, 1, 0},
	}
	for _, s := range steps {
		wantRoundTrips(t, b, s.what, s.want, s.do)
		if got := b.Stats().Unsent; got != s.unsent {
			t.Errorf("%s: %d unsent, want %d", s.what, got, s.unsent)
		}
	}
	if st := b.Stats(); st.Requests != 21 || st.Retries != 2 || st.Allowed != 2 || st.Refused != 2 {
		t.Errorf("Stats = %+v, want 21 first attempts and 2 retries in the window, 2 allowed and 2 refused", st)
	}
	mustShared(t, b)
}

// TestRatioClockSkew: instances whose clocks disagree by an hour share
// one window, on the server's clock: the first attempts of one allow the
// retries of the other.
func TestRatioClockSkew(t *testing.T) {
	addr := needRedis(t)
	early, late := newVirtual(), newVirtual()
	late.mock.Add(time.Hour)
	n := name(t)
	opts := []Option{WithBudget(budget.WithMinRetriesPerSecond(0), budget.WithRetryRatio(1)), WithStaleness(0), generous}
	a := NewRatio(newClient(t, addr), n, append(opts, early.option())...)
	b := NewRatio(newClient(t, addr), n, append(opts, late.option())...)
	for range 3 {
		a.Allow(bg, first)
	}
	for i := range 4 {
		_, err := b.Allow(bg, retry)
		if want := i < 3; (err == nil) != want {
			t.Fatalf("retry %d of the instance an hour ahead: %v, want admitted %v", i, err, want)
		}
	}
}

// TestRatioKey: the window lives under the guard's hash tag, with a TTL
// of WithTTL and the window, and no key is written until something is
// counted.
func TestRatioKey(t *testing.T) {
	addr := needRedis(t)
	n := name(t)
	b := NewRatio(newClient(t, addr), n, WithBudget(budget.WithWindow(time.Minute), budget.WithMinRetriesPerSecond(0), budget.WithRetryRatio(0)), WithTTL(time.Minute), WithStaleness(0), generous)
	a := admin(t, addr)
	key := "backoff:{" + n + "}:ratio"
	if _, err := b.Allow(bg, retry); !errors.Is(err, budget.ErrBudgetExhausted) {
		t.Fatalf("Allow = %v, want refused", err)
	}
	if got, err := a.Exists(bg, key).Result(); err != nil || got != 0 {
		t.Fatalf("an empty window: EXISTS %s = %d, %v; want 0", key, got, err)
	}
	b.Allow(bg, first)
	ttl, err := a.PTTL(bg, key).Result()
	if err != nil || ttl <= time.Minute || ttl > 2*time.Minute {
		t.Fatalf("PTTL %s = %v, %v; want in (1m, 2m]", key, ttl, err)
	}
}

// TestRatioUnreachable: with no server, the local fallback, a
// budget.NewRatio, counts the first attempts from the one that found
// Redis failed, and decides the retries on them.
func TestRatioUnreachable(t *testing.T) {
	v := newVirtual()
	c := faultClient("127.0.0.1:1")
	defer c.Close()
	b := NewRatio(c, name(t), WithBudget(budget.WithMinRetriesPerSecond(0), budget.WithRetryRatio(0.5)), v.option())
	for range 4 {
		if _, err := b.Allow(bg, first); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		p, err := b.Allow(bg, retry)
		if want := i < 2; (err == nil) != want || want && p.Token&localBit == 0 {
			t.Fatalf("retry %d: %+v, %v; want admitted %v by the local fallback", i, p, err, want)
		}
	}
	if st := b.Stats(); st.Link.Shared || st.Link.Fallbacks != 1 || st.Link.RoundTrips != 1 || st.Local.Requests != 4 {
		t.Errorf("Stats = %+v; want local after one round trip, 4 first attempts in the fallback's window", st)
	}
}

// allowance is exact, as the script's: the reserve plus n times the
// ratio per million, rounded down, and saturates.
func TestRatioAllowance(t *testing.T) {
	for _, c := range []struct{ n, ratio, reserve uint64 }{
		{10, 300_000, 0}, {999_999, 1_000_000_000, 7}, {1_000_001, 3, 0}, {123_456_789_012, 200_000, 100},
		{1 << 40, 999_999_999, 5}, {1 << 63, 1_000_000_000, 0},
	} {
		r := ratio{reserve: c.reserve, ratio: c.ratio}
		want := new(big.Int).Mul(new(big.Int).SetUint64(c.n), new(big.Int).SetUint64(c.ratio))
		want.Div(want, big.NewInt(1_000_000)).Add(want, new(big.Int).SetUint64(c.reserve))
		if !want.IsUint64() {
			want.SetUint64(1<<64 - 1)
		}
		if got := r.allowance(c.n); got != want.Uint64() {
			t.Errorf("allowance(%d) at %d per million + %d = %d, want %d", c.n, c.ratio, c.reserve, got, want)
		}
	}
}
