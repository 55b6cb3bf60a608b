package budget

import (
	"context"
	"testing"

	"github.com/herdsafe/backoff/guard"
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
