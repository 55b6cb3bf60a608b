package ratelimit_test

import (
	"context"
	"testing"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/ratelimit"
)

// BenchmarkAllowRecord is an admitted call's Allow and Record, under the
// rate: what every call pays.
func BenchmarkAllowRecord(b *testing.B) {
	l := ratelimit.New(1<<30, 1<<30)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		p, err := l.Allow(ctx, guard.Call{Attempt: 1})
		if err != nil {
			b.Fatal(err)
		}
		l.Record(p, guard.Outcome{})
	}
}

// BenchmarkRun is the success path through Run.
func BenchmarkRun(b *testing.B) {
	l := ratelimit.New(1<<30, 1<<30)
	ctx := context.Background()
	fn := func(context.Context) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Run(ctx, fn); err != nil {
			b.Fatal(err)
		}
	}
}
