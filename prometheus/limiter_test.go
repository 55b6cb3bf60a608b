package prombackoff_test

import (
	"context"
	"errors"
	"testing"

	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/limiter"
)

func TestObserveLimiter(t *testing.T) {
	in, reg := newInstrumenter(t)
	l := limiter.New(limiter.WithInitialLimit(2), limiter.WithPriorityThresholds(0.5, 1))
	if _, err := in.ObserveLimiter("db", l); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	low := bulkhead.WithPriority(ctx, bulkhead.Low)
	first, err := l.Allow(low, guard.Call{Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Allow(low, guard.Call{Attempt: 1}); !errors.Is(err, limiter.ErrLimitExceeded) {
		t.Fatalf("a second low call: %v, want it shed", err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.Allow(done, guard.Call{Attempt: 1}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a done context: %v", err)
	}
	expect(t, reg, `# HELP backoff_limiter_cancellations_total Callers turned away because their context was done.
# TYPE backoff_limiter_cancellations_total counter
backoff_limiter_cancellations_total{name="db"} 1
# HELP backoff_limiter_in_flight Calls the limiter admitted that have not ended.
# TYPE backoff_limiter_in_flight gauge
backoff_limiter_in_flight{name="db"} 1
# HELP backoff_limiter_limit The most calls the limiter admits at once, as it now stands.
# TYPE backoff_limiter_limit gauge
backoff_limiter_limit{name="db"} 2
# HELP backoff_limiter_queued Callers waiting in the limiter's queue.
# TYPE backoff_limiter_queued gauge
backoff_limiter_queued{name="db"} 0
# HELP backoff_limiter_refusals_total Calls the limiter refused, over the limit or shed by their priority, by priority.
# TYPE backoff_limiter_refusals_total counter
backoff_limiter_refusals_total{name="db",priority="critical"} 0
backoff_limiter_refusals_total{name="db",priority="low"} 1
backoff_limiter_refusals_total{name="db",priority="standard"} 0
`, "backoff_limiter_limit", "backoff_limiter_in_flight", "backoff_limiter_queued", "backoff_limiter_refusals_total", "backoff_limiter_cancellations_total")
	l.Record(first, guard.Outcome{Abandoned: true})
}
