package amqpretry

import (
	"context"
	"errors"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
	amqp "github.com/rabbitmq/amqp091-go"
)

// While the broker is down, the Supervisor dials after each interval of
// its BackOff, growing, and stops before a wait that would overrun the
// caller's deadline, keeping the dial's error. Virtual time: no wall
// clock is spent.
func TestSupervisorBacksOffWhileTheBrokerIsDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		refused := errors.New("connect: connection refused")
		start := time.Now()
		var dials []time.Duration
		var reported []error
		s := &Supervisor{
			URL: "amqp://guest:guest@127.0.0.1:5672/",
			Config: amqp.Config{Dial: func(string, string) (net.Conn, error) {
				dials = append(dials, time.Since(start))
				return nil, refused
			}},
			BackOff: &backoff.ExponentialBackOff{
				InitialInterval: time.Second, Multiplier: 2, MaxInterval: 4 * time.Second,
				Jitter: backoff.FullJitter, Random: func() float64 { return 1 },
			},
			OnError: func(err error) { reported = append(reported, err) },
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		err := s.Run(ctx, func(context.Context, *amqp.Channel) error { return nil })

		want := []time.Duration{0, 1, 3, 7, 11, 15, 19}
		if len(dials) != len(want) {
			t.Fatalf("dials at %v, want at %v seconds", dials, want)
		}
		for i := range want {
			if dials[i] != want[i]*time.Second {
				t.Fatalf("dials at %v, want at %v seconds", dials, want)
			}
		}
		var be *backoff.Error
		if !errors.As(err, &be) || !errors.Is(be.Cause, context.DeadlineExceeded) || !errors.Is(be.LastErr, refused) || be.Attempts != 7 {
			t.Fatalf("Run: %+v, want the deadline, the dial's error and 7 attempts", err)
		}
		if time.Since(start) != 19*time.Second {
			t.Fatalf("Run returned after %v, want at once after the last dial, at 19s", time.Since(start))
		}
		if len(reported) != 7 {
			t.Fatalf("OnError called %d times, want once for each failed dial", len(reported))
		}
	})
}

// A BackOff that stops ends Run with ErrExhausted and the last error.
func TestSupervisorStopsWhenTheBackOffDoes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		refused := errors.New("connect: connection refused")
		s := &Supervisor{
			URL:     "amqp://guest:guest@127.0.0.1:5672/",
			Config:  amqp.Config{Dial: func(string, string) (net.Conn, error) { return nil, refused }},
			BackOff: &stopAfter{waits: []time.Duration{time.Second, time.Second}},
		}
		err := s.Run(context.Background(), func(context.Context, *amqp.Channel) error { return nil })
		var be *backoff.Error
		if !errors.As(err, &be) || !errors.Is(be.Cause, backoff.ErrExhausted) || !errors.Is(be.LastErr, refused) || be.Attempts != 3 {
			t.Fatalf("Run: %+v, want ErrExhausted after 3 attempts", err)
		}
	})
}

// stopAfter returns the waits of its list, then Stop.
type stopAfter struct {
	waits []time.Duration
	i     int
}

func (s *stopAfter) NextBackOff() time.Duration {
	if s.i >= len(s.waits) {
		return backoff.Stop
	}
	s.i++
	return s.waits[s.i-1]
}
func (s *stopAfter) Reset() { s.i = 0 }

// Clone returns s itself, so that the test sees the Run's waits: a
// Supervisor's Loop takes only a BackOff it can clone.
func (s *stopAfter) Clone() backoff.BackOff { return s }
