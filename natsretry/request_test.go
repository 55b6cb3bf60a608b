package natsretry

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/policy"
	"github.com/nats-io/nats.go"
)

// fast is a policy's BackOff for the tests: 1 ms, then 2 ms, capped at 5.
func fast() backoff.BackOff {
	return &backoff.ExponentialBackOff{InitialInterval: time.Millisecond, Multiplier: 2, MaxInterval: 5 * time.Millisecond, Jitter: backoff.FullJitter}
}

func connect(t *testing.T, url string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// A request to a service that is not subscribed yet fails with no
// responders; Request tries again, and is answered once the service is
// there.
func TestRequestRetriesUntilAResponderComes(t *testing.T) {
	srv := needNATS(t)
	client, service := connect(t, srv.url()), connect(t, srv.url())
	failures := 0
	notify := backoff.WithNotify(func(err error, _ time.Duration) {
		if !errors.Is(err, nats.ErrNoResponders) {
			t.Errorf("attempt failed with %v, want no responders", err)
		}
		failures++
		if failures == 2 { // the service subscribes before the third attempt
			if _, err := service.Subscribe("svc.echo", func(m *nats.Msg) { _ = m.Respond(m.Data) }); err != nil {
				t.Error(err)
			}
			if err := service.Flush(); err != nil {
				t.Error(err)
			}
		}
	})
	p := policy.New(policy.Retry(backoff.WithBackOff(fast()), backoff.WithMaxTries(10), notify))
	reply, err := Request(context.Background(), client, p, "svc.echo", []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if string(reply.Data) != "hello" || failures != 2 {
		t.Fatalf("reply %q after %d failures, want hello after 2", reply.Data, failures)
	}
}

// A responder that drops the first request: the attempt times out (a
// Timeout stage inside the retry stage), and the second is answered.
func TestRequestRetriesATimedOutAttempt(t *testing.T) {
	srv := needNATS(t)
	client, service := connect(t, srv.url()), connect(t, srv.url())
	seen := 0
	if _, err := service.Subscribe("svc.flaky", func(m *nats.Msg) {
		seen++
		if seen > 1 {
			_ = m.Respond([]byte("ok"))
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := service.Flush(); err != nil {
		t.Fatal(err)
	}
	p := policy.New(policy.Retry(backoff.WithBackOff(fast()), backoff.WithMaxTries(3)), policy.Timeout(100*time.Millisecond))
	reply, err := Request(context.Background(), client, p, "svc.flaky", nil)
	if err != nil || string(reply.Data) != "ok" {
		t.Fatalf("Request: %v, %v", reply, err)
	}
}

// A request that cannot succeed stops at the first attempt, whatever the
// retry stage's classifier, with the error kept.
func TestRequestStopsAtAnErrorRetryableRejects(t *testing.T) {
	srv := needNATS(t)
	client := connect(t, srv.url())
	p := policy.New(policy.Retry(backoff.WithBackOff(fast()), backoff.WithMaxTries(5)))
	_, err := Request(context.Background(), client, p, "bad subject", nil)
	var be *backoff.Error
	if !errors.As(err, &be) || !errors.Is(be.Cause, backoff.ErrPermanent) || be.Attempts != 1 {
		t.Fatalf("Request: %+v, want ErrPermanent after 1 attempt", err)
	}
	if errors.Is(be.LastErr, nats.ErrBadSubject) == false {
		t.Fatalf("LastErr %v, want nats.ErrBadSubject", be.LastErr)
	}
	client.Close()
	_, err = Request(context.Background(), client, p, "svc", nil)
	if !errors.As(err, &be) || !errors.Is(be.LastErr, nats.ErrConnectionClosed) || be.Attempts != 1 {
		t.Fatalf("Request on a closed connection: %+v", err)
	}
}

// The caller's deadline ends the retries, and the last real error stays.
func TestRequestKeepsTheLastErrorAtTheDeadline(t *testing.T) {
	srv := needNATS(t)
	client := connect(t, srv.url())
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	// Waits of 30 ms: the driver stops before a wait that would overrun
	// the deadline, so the last attempt is one that found no responder.
	p := policy.New(policy.Retry(backoff.WithBackOff(backoff.NewConstantBackOff(30*time.Millisecond)),
		backoff.WithMaxElapsedTime(0), backoff.WithMaxTries(1000)))
	_, err := Request(ctx, client, p, "nobody", nil)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, nats.ErrNoResponders) {
		t.Fatalf("Request: %+v, want the deadline and no responders", err)
	}
}

func TestRequestRefusesNilArguments(t *testing.T) {
	p := policy.New()
	var nilCtx context.Context // nil, on purpose
	_, err := RequestMsg(nilCtx, nil, p, nil)
	if !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Fatalf("RequestMsg: %v", err)
	}
	for _, word := range []string{"nil context", "nil *nats.Conn", "nil *nats.Msg"} {
		if !contains(err.Error(), word) {
			t.Errorf("the error does not name the %s: %v", word, err)
		}
	}
}
