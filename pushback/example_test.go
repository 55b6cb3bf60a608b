package pushback_test

import (
	"context"
	"fmt"
	"time"

	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/pushback"
)

// The wait a full bulkhead asks for, in the whole seconds of HTTP's
// Retry-After and in the milliseconds of gRPC's grpc-retry-pushback-ms,
// for the same draw of the spread.
func ExampleRule_Wait() {
	slots := bulkhead.New(1)
	p, _ := slots.Allow(context.Background(), guard.Call{Attempt: 1}) // the one slot taken
	defer slots.Record(p, guard.Outcome{})
	_, refusal := slots.Allow(context.Background(), guard.Call{Attempt: 1})

	draw := func() float64 { return 0.7 } // a test's fixed draw; nil is math/rand/v2's
	retryAfter := pushback.Rule{Base: time.Second, Max: 2 * time.Minute, Unit: time.Second, Random: draw}
	grpc := pushback.Rule{Base: time.Second, Max: 30 * time.Second, Unit: time.Millisecond, Random: draw}
	fmt.Println("Retry-After:", retryAfter.Wait(slots, refusal))
	fmt.Println("grpc-retry-pushback-ms:", grpc.Wait(slots, refusal))
	// Output:
	// Retry-After: 2s
	// grpc-retry-pushback-ms: 1.7s
}
