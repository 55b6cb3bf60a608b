package prombackoff_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
)

func TestObserveBulkhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, reg := newInstrumenter(t)
		b := bulkhead.New(1, bulkhead.WithQueue(1))
		if _, err := in.ObserveBulkhead("db", b); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		held, err := b.Allow(ctx, guard.Call{Attempt: 1})
		if err != nil {
			t.Fatal(err)
		}
		waitCtx, cancel := context.WithCancel(ctx)
		done := make(chan error)
		go func() {
			_, err := b.Allow(waitCtx, guard.Call{Attempt: 1})
			done <- err
		}()
		synctest.Wait() // the second caller waits in the queue
		if _, err := b.Allow(ctx, guard.Call{Attempt: 1}); !errors.Is(err, bulkhead.ErrBulkheadFull) {
			t.Fatalf("a third caller: %v, want ErrBulkheadFull", err)
		}
		levels := func(inFlight, queued string) string {
			return `# HELP backoff_bulkhead_in_flight Calls the bulkhead admitted that have not ended.
# TYPE backoff_bulkhead_in_flight gauge
backoff_bulkhead_in_flight{name="db"} ` + inFlight + `
# HELP backoff_bulkhead_queued Callers waiting in the bulkhead's queue for a slot.
# TYPE backoff_bulkhead_queued gauge
backoff_bulkhead_queued{name="db"} ` + queued + `
# HELP backoff_bulkhead_limit The most calls the bulkhead admits at once.
# TYPE backoff_bulkhead_limit gauge
backoff_bulkhead_limit{name="db"} 1
`
		}
		expect(t, reg, levels("1", "1")+`# HELP backoff_bulkhead_refusals_total Calls the bulkhead refused as full, by priority (empty for a bulkhead without priorities).
# TYPE backoff_bulkhead_refusals_total counter
backoff_bulkhead_refusals_total{name="db",priority=""} 1
`, "backoff_bulkhead_in_flight", "backoff_bulkhead_queued", "backoff_bulkhead_limit", "backoff_bulkhead_refusals_total")
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("the queued caller: %v, want context.Canceled", err)
		}
		b.Record(held, guard.Outcome{})
		expect(t, reg, levels("0", "0")+`# HELP backoff_bulkhead_cancellations_total Callers turned away because their context was done.
# TYPE backoff_bulkhead_cancellations_total counter
backoff_bulkhead_cancellations_total{name="db"} 1
`, "backoff_bulkhead_in_flight", "backoff_bulkhead_queued", "backoff_bulkhead_limit", "backoff_bulkhead_cancellations_total")
	})
}

func TestObservePriorityBulkhead(t *testing.T) {
	in, reg := newInstrumenter(t)
	b := bulkhead.NewPriority(4) // low calls may take it to 2
	if _, err := in.ObservePriorityBulkhead("db", b); err != nil {
		t.Fatal(err)
	}
	low := bulkhead.WithPriority(context.Background(), bulkhead.Low)
	for i := range 3 {
		_, err := b.Allow(low, guard.Call{Attempt: 1})
		if refused := errors.Is(err, bulkhead.ErrBulkheadFull); refused != (i == 2) {
			t.Fatalf("low call %d: %v", i+1, err)
		}
	}
	expect(t, reg, `# HELP backoff_bulkhead_in_flight Calls the bulkhead admitted that have not ended.
# TYPE backoff_bulkhead_in_flight gauge
backoff_bulkhead_in_flight{name="db"} 2
# HELP backoff_bulkhead_limit The most calls the bulkhead admits at once.
# TYPE backoff_bulkhead_limit gauge
backoff_bulkhead_limit{name="db"} 4
# HELP backoff_bulkhead_refusals_total Calls the bulkhead refused as full, by priority (empty for a bulkhead without priorities).
# TYPE backoff_bulkhead_refusals_total counter
backoff_bulkhead_refusals_total{name="db",priority="critical"} 0
backoff_bulkhead_refusals_total{name="db",priority="low"} 1
backoff_bulkhead_refusals_total{name="db",priority="standard"} 0
`, "backoff_bulkhead_in_flight", "backoff_bulkhead_limit", "backoff_bulkhead_refusals_total", "backoff_bulkhead_queued")
}

// A Bulkhead and a PriorityBulkhead can be observed on one registry: their
// common metrics have one set of labels and one help text.
func TestObserveBothKindsOfBulkhead(t *testing.T) {
	in, reg := newInstrumenter(t)
	plain, prio := bulkhead.New(1), bulkhead.NewPriority(4)
	if _, err := in.ObserveBulkhead("plain", plain); err != nil {
		t.Fatal(err)
	}
	if _, err := in.ObservePriorityBulkhead("prio", prio); err != nil {
		t.Fatalf("a priority bulkhead beside a bulkhead: %v", err)
	}
	if _, err := plain.Allow(context.Background(), guard.Call{Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Allow(context.Background(), guard.Call{Attempt: 1}); !errors.Is(err, bulkhead.ErrBulkheadFull) {
		t.Fatalf("a second call: %v, want ErrBulkheadFull", err)
	}
	expect(t, reg, `# HELP backoff_bulkhead_in_flight Calls the bulkhead admitted that have not ended.
# TYPE backoff_bulkhead_in_flight gauge
backoff_bulkhead_in_flight{name="plain"} 1
backoff_bulkhead_in_flight{name="prio"} 0
`+refusalsHelp+`
# TYPE backoff_bulkhead_refusals_total counter
backoff_bulkhead_refusals_total{name="plain",priority=""} 1
backoff_bulkhead_refusals_total{name="prio",priority="critical"} 0
backoff_bulkhead_refusals_total{name="prio",priority="low"} 0
backoff_bulkhead_refusals_total{name="prio",priority="standard"} 0
`, "backoff_bulkhead_in_flight", "backoff_bulkhead_refusals_total")
}

const refusalsHelp = "# HELP backoff_bulkhead_refusals_total Calls the bulkhead refused as full, by priority (empty for a bulkhead without priorities)."
