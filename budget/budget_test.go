package budget

import (
	"context"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/guardtest"
)

// TestSuccessPathAllocs checks that admitted successes allocate nothing:
// a first attempt, and a retry.
func TestSuccessPathAllocs(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		b    *Budget
	}{{"tokens", NewTokenBucket()}, {"ratio", NewRatio(WithRetryRatio(1))}} {
		allocs := testing.AllocsPerRun(1000, func() {
			for _, c := range []guard.Call{first, retry} {
				p, err := tc.b.Allow(ctx, c)
				if err != nil {
					t.Fatal(err)
				}
				tc.b.Record(p, guard.Outcome{})
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocs, want 0", tc.name, allocs)
		}
	}
}

func BenchmarkSuccess(b *testing.B) {
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		g    *Budget
	}{{"tokens", NewTokenBucket()}, {"ratio", NewRatio()}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, _ := bc.g.Allow(ctx, first)
				bc.g.Record(p, guard.Outcome{})
			}
		})
		b.Run(bc.name+"/parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					p, _ := bc.g.Allow(ctx, first)
					bc.g.Record(p, guard.Outcome{})
				}
			})
		})
	}
}

// BenchmarkRetry measures an admitted retry that succeeds: the failure
// path's admission.
func BenchmarkRetry(b *testing.B) {
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		g    *Budget
	}{{"tokens", NewTokenBucket()}, {"ratio", NewRatio(WithRetryRatio(1000))}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = bc.g.Allow(ctx, first)
				p, _ := bc.g.Allow(ctx, retry)
				bc.g.Record(p, guard.Outcome{})
			}
		})
	}
}

// Allow refuses a nil context, token bucket or ratio, first attempt or
// retry, as every guard of the module does, with the same words: an
// error matching ErrInvalidConfiguration, and nothing counted.
func TestAllowNilContext(t *testing.T) {
	spent := NewTokenBucket(WithMaxTokens(2))
	spent.Record(guard.Permit{}, guard.Outcome{Err: errDown})
	cases := []struct {
		name string
		b    *Budget
	}{
		{"TokenBucket", NewTokenBucket()},
		{"TokenBucket_spent", spent},
		{"TokenBucket_invalid", NewTokenBucket(WithMaxTokens(0))},
		{"Ratio", NewRatio(WithClock(clock.NewMock()))},
		{"Ratio_invalid", NewRatio(WithWindow(0))},
		{"zero", &Budget{}},
		{"nil", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := c.b.Stats()
			guardtest.RefusesNilContext(t, c.b, "budget")
			if after := c.b.Stats(); after != before {
				t.Errorf("Stats() = %+v after Allow(nil), want %+v", after, before)
			}
		})
	}
}
