package backoff_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
)

// Examples of waiting outside Retry: a Ticker, a Loop, and a test's clock.

func ExampleTicker() {
	// An operation that fails twice, then succeeds.
	calls := 0
	operation := func() (string, error) {
		if calls++; calls < 3 {
			return "", fmt.Errorf("attempt %d failed", calls)
		}
		return "hello", nil
	}

	// Ticks with no wait between them, so that the example runs at once: a
	// real ticker keeps the default BackOff (a test runs its waits on the
	// virtual time of a testing/synctest bubble).
	ticker := backoff.NewTicker(&backoff.ZeroBackOff{})
	defer ticker.Stop()

	var result string
	var err error

	// Ticks will continue to arrive when the previous operation is still
	// running, so operations that take a while to fail could run in quick
	// succession.
	for range ticker.C {
		if result, err = operation(); err != nil {
			fmt.Println(err, "- will retry at the next tick")
			continue
		}
		break
	}
	if err != nil {
		fmt.Println("Error:", err)
		return
	}
	fmt.Println(result)
	// Output:
	// attempt 1 failed - will retry at the next tick
	// attempt 2 failed - will retry at the next tick
	// hello
}

// A Ticker has no context of its own: wrap its policy with WithContext to
// end it with one.
func ExampleWithContext() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ticker := backoff.NewTicker(backoff.WithContext(ctx, backoff.NewConstantBackOff(time.Hour)))
	defer ticker.Stop()

	ticks := 0
	for range ticker.C {
		ticks++
		cancel() // the hour-long wait ends at once
	}
	fmt.Println("ticks:", ticks)
	// Output:
	// ticks: 1
}

// A reconnect loop: the first Wait returns at once, each later one waits the
// next backoff, and Reset after a success starts the waiting over.
func ExampleLoop() {
	ctx := context.Background()
	// No wait, so that the example runs at once; a real loop keeps the
	// default waits.
	loop := backoff.NewRetrier(backoff.WithMaxTries(4), backoff.WithBackOff(&backoff.ZeroBackOff{})).Loop()
	sessions := []bool{false, true, false, false, false, false} // did each connection get through?
	for i := 0; loop.Wait(ctx); i++ {
		connected := sessions[i]
		fmt.Println("attempt", loop.Attempt(), "connected:", connected)
		if connected {
			loop.Reset()
		}
	}
	fmt.Println(loop.Err(), errors.Is(loop.Err(), backoff.ErrExhausted))
	// Output:
	// attempt 1 connected: false
	// attempt 2 connected: true
	// attempt 1 connected: false
	// attempt 2 connected: false
	// attempt 3 connected: false
	// attempt 4 connected: false
	// backoff: retries exhausted true
}

// timerClock is a mock clock that reports each timer started on it, so a
// test advances it exactly when something waits.
type timerClock struct {
	*clock.Mock
	started chan time.Duration
}

func (c timerClock) Timer(d time.Duration) *clock.Timer {
	t := c.Mock.Timer(d)
	c.started <- d
	return t
}

// A test drives the driver's waits with a mock clock instead of spending
// them.
func ExampleWithClock() {
	clk := timerClock{clock.NewMock(), make(chan time.Duration)}
	done := make(chan error)
	attempts := 0
	go func() {
		done <- backoff.RetryError(func() error {
			if attempts++; attempts < 3 {
				return errConnRefused
			}
			return nil
		}, backoff.WithClock(clk), backoff.WithBackOff(backoff.NewConstantBackOff(time.Minute)))
	}()
	for {
		select {
		case wait := <-clk.started:
			fmt.Println("waiting", wait)
			clk.Add(wait)
		case err := <-done:
			fmt.Println(attempts, err)
			return
		}
	}
	// Output:
	// waiting 1m0s
	// waiting 1m0s
	// 3 <nil>
}
