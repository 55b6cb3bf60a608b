package prombackoff_test

import (
	"context"
	"errors"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/throttle"
)

func TestObserveThrottle(t *testing.T) {
	in, reg := newInstrumenter(t)
	tr := throttle.New(throttle.WithClock(clock.NewMock()), throttle.WithRandom(func() float64 { return 0 }))
	if _, err := in.ObserveThrottle("api", tr); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := tr.Allow(ctx, guard.Call{Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	tr.Record(p, guard.Outcome{Err: errTransient}) // 1 request, no accept
	if _, err := tr.Allow(ctx, guard.Call{Attempt: 1}); !errors.Is(err, throttle.ErrThrottled) {
		t.Fatalf("a call after a failure: %v, want ErrThrottled", err)
	}
	// 2 requests (the rejected one counts), no accepts: (2 - 2*0) / (2 + 1).
	expect(t, reg, `# HELP backoff_throttle_refusals_total Calls the throttle rejected locally.
# TYPE backoff_throttle_refusals_total counter
backoff_throttle_refusals_total{name="api"} 1
# HELP backoff_throttle_rejection_probability The probability, from 0 to 1, that the throttle rejects the next call.
# TYPE backoff_throttle_rejection_probability gauge
backoff_throttle_rejection_probability{name="api"} 0.6666666666666666
`, "backoff_throttle_refusals_total", "backoff_throttle_rejection_probability")
}
