package bulkhead_test

import (
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
)

// The queue's own behaviour (hand-off, maximum wait, cancellation, under
// load too) is tested in internal/queue; this test checks what the
// Bulkhead makes of it: its options, ErrBulkheadFull and its Stats.
func TestQueue(t *testing.T) {
	const wait = 3 * time.Second
	guardtest.Queue(t, func(clk clock.Clock) *bulkhead.Bulkhead {
		return bulkhead.New(1, bulkhead.WithQueue(2), bulkhead.WithMaxWait(wait), bulkhead.WithClock(clk))
	}, wait, bulkhead.ErrBulkheadFull, func(b *bulkhead.Bulkhead) guardtest.QueueCounts {
		s := b.Stats()
		return guardtest.QueueCounts{InFlight: s.InFlight, Queued: s.Queued, Refused: s.Refused, Canceled: s.Canceled}
	})
}
