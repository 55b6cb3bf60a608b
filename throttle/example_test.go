package throttle_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
	"github.com/herdsafe/backoff/throttle"
)

var errOverloaded = errors.New("503 overloaded")

// A Throttle inside the retry stage sheds attempts locally once the
// backend rejects more than half of them.
func Example_policy() {
	clk := clock.NewMock()
	th := throttle.New(
		throttle.WithClock(clk),
		throttle.WithRandom(func() float64 { return 0.25 }), // a fixed draw, for a stable output
	)
	p := policy.New(
		policy.Retry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(3)),
		policy.Guard(th),
	)
	ctx := context.Background()
	sent := 0
	down := func(context.Context) (string, error) { sent++; return "", errOverloaded }
	for range 20 {
		_, _ = policy.Do(ctx, p, down)
	}
	s := th.Stats()
	fmt.Printf("sent %d of %d requests; rejection probability now %.2f\n", sent, s.Requests, s.Probability) // at most DefaultMaxRejection

	_, err := policy.Do(ctx, p, down)
	var e *backoff.Error
	errors.As(err, &e)
	fmt.Println("throttled:", errors.Is(e.Cause, throttle.ErrThrottled), "before any attempt:", guard.IsRefusal(err))

	clk.Add(2 * time.Minute) // the outage leaves the window
	fmt.Printf("two minutes later: %+v\n", th.Stats())
	// Output:
	// sent 1 of 21 requests; rejection probability now 0.50
	// throttled: true before any attempt: true
	// two minutes later: {Requests:0 Accepts:0 Probability:0 Rejected:21}
}

func ExampleNew() {
	th := throttle.New(
		throttle.WithK(2),                  // the SRE book's K
		throttle.WithWindow(2*time.Minute), // the book's window
		throttle.WithAccepted(func(err error) bool { // a 404 was processed: not overload
			return err.Error() == "404 not found"
		}),
		throttle.WithClock(clock.NewMock()),
		throttle.WithRandom(func() float64 { return 0.3 }),
	)
	ctx := context.Background()
	for _, err := range []error{nil, errors.New("404 not found"), errOverloaded, errOverloaded, errOverloaded, errOverloaded, errOverloaded} {
		p, _ := th.Allow(ctx, guard.Call{Attempt: 1})
		th.Record(p, guard.Outcome{Err: err})
	}
	fmt.Printf("%+v\n", th.Stats()) // (7 − 2·2) / 8
	_, err := th.Allow(ctx, guard.Call{Attempt: 1})
	fmt.Println(err)
	// Output:
	// {Requests:7 Accepts:2 Probability:0.375 Rejected:0}
	// throttle: rejected locally: the backend rejects too many calls
}

func ExampleThrottle_Run() {
	th := throttle.New(throttle.WithClock(clock.NewMock()))
	err := th.Run(context.Background(), func(context.Context) error {
		return nil // call the backend
	})
	fmt.Println(err, th.Stats())
	// Output:
	// <nil> {1 1 0 0}
}
