package bench

import (
	"context"
	"testing"

	"github.com/failsafe-go/failsafe-go"
	fsbulkhead "github.com/failsafe-go/failsafe-go/bulkhead"
	"github.com/herdsafe/backoff/bulkhead"
	"go.uber.org/goleak"
)

// The capacity both bulkheads are given: the example of the Policy docs.
const bulkheadCapacity = 20

// Built once and shared, as both libraries intend: herdsafe's Bulkhead
// with New, failsafe-go's executor with failsafe.With around a bulkhead
// of its own, as its documentation recommends for reuse.
var (
	herdsafeBulkhead = bulkhead.New(bulkheadCapacity)
	failsafeBulkhead = failsafe.With[int](fsbulkhead.New[int](bulkheadCapacity))
)

// bulkheadLibs run op once in a slot of each library's bulkhead, in the
// per-call form each documents: Bulkhead.Run, and the executor's Get.
var bulkheadLibs = []lib{
	{name: "herdsafe", ours: true, call: func(ctx context.Context, op operation) (int, error) {
		var v int
		err := herdsafeBulkhead.Run(ctx, keep(&v, op))
		return v, err
	}},
	failsafeRow(failsafeBulkhead),
}

// BenchmarkBulkheadSuccess is the cost of a bulkhead around a call that
// succeeds, a slot free: what every call through a bulkhead that is not
// full pays.
func BenchmarkBulkheadSuccess(b *testing.B) {
	benchSuccess(b, bulkheadLibs)
}

// Each bulkhead row calls the operation once, returns its result, and
// gives its slot back.
func TestBulkheadSuccessCallsOnce(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, l := range bulkheadLibs {
		callsOnce(t, l, bulkheadCapacity+1) // more calls than slots: each slot came back
	}
	if s := herdsafeBulkhead.Stats(); s.InFlight != 0 || s.Capacity != bulkheadCapacity {
		t.Errorf("herdsafe: Stats() = %+v, want capacity %d and nothing in flight", s, bulkheadCapacity)
	}
}
