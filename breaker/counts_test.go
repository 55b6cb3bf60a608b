package breaker_test

import (
	"testing"
	"time"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/guard"
)

func TestCounts(t *testing.T) {
	clk := newMock()
	b := breaker.New(breaker.WithClock(clk), breaker.WithConsecutiveFailures(2), breaker.WithOpenDuration(time.Second))
	calls(t, b, 3, nil)
	late := admit(t, b)
	b.Record(admit(t, b), guard.Outcome{Err: errBoom, Abandoned: true})
	calls(t, b, 2, errBoom)
	refused(t, b)
	refused(t, b)
	b.Record(late, guard.Outcome{})
	want := breaker.Counts{
		Successes: 3, Failures: 2, Neutral: 1, Ignored: 1, Rejections: 2,
		ConsecutiveFailures: 2, Transitions: 1,
	}
	if got := b.Counts(); got != want {
		t.Fatalf("Counts() = %+v, want %+v", got, want)
	}
	clk.Add(time.Second)
	calls(t, b, 1, nil)
	want.Successes, want.ConsecutiveFailures, want.Transitions = 4, 0, 3
	if got := b.Counts(); got != want {
		t.Fatalf("Counts() after closing = %+v, want %+v", got, want)
	}
}
