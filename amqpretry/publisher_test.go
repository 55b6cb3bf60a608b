package amqpretry

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	amqp "github.com/rabbitmq/amqp091-go"
)

// quick is a Supervisor's BackOff for the tests: full jitter from 100 ms,
// capped at 500 ms.
func quick() backoff.BackOff {
	return &backoff.ExponentialBackOff{InitialInterval: 100 * time.Millisecond, Multiplier: 2, MaxInterval: 500 * time.Millisecond, Jitter: backoff.FullJitter}
}

// durable declares a durable queue.
func durable(name string) func(*amqp.Channel) error {
	return func(ch *amqp.Channel) error {
		if _, err := ch.QueueDeclare(name, true, false, false, false, nil); err != nil {
			return err
		}
		return ch.Qos(100, 0, false)
	}
}

// running runs f in a goroutine and returns a function that cancels it
// and returns its error, which may be called again.
func running(f func(ctx context.Context) error) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f(ctx) }()
	return sync.OnceValue(func() error {
		cancel()
		return <-done
	})
}

// A publisher sends K numbered messages, from many goroutines, while the
// broker is restarted twice, and a consumer of the queue runs throughout:
// every message is either confirmed, and then consumed (some twice: the
// duplicates are counted, and carry the message ID of the first), or
// reported to its caller as not delivered. Messages of a second stream,
// each with a deadline of half a second, are published meanwhile: those
// caught by a restart are reported, the others confirmed and consumed.
// The consumer consumes again after each restart without the test doing
// anything, and the publisher and the consumer both saw their connection
// dropped at each restart (the broker closes it with 320, connection
// forced, or the network fails first).
func TestNothingLostAcrossTwoRestarts(t *testing.T) {
	b := needBroker(t)
	const (
		queue   = "nothing-lost"
		k       = 3000
		workers = 32
		short   = 1_000_000 // the numbers of the second stream begin here
	)
	var mu sync.Mutex
	consumed := map[int]int{}
	ids := map[int]string{}
	idMismatch := 0
	var consumerSessions, consumerForced, publisherForced, forced320 atomic.Int32
	var closures []string
	forced := func(n *atomic.Int32) func(error) {
		return func(err error) {
			mu.Lock()
			closures = append(closures, err.Error())
			mu.Unlock()
			var e *amqp.Error
			if errors.As(err, &e) {
				n.Add(1) // a drop, not a failed dial
				if e.Code == amqp.ConnectionForced {
					forced320.Add(1)
				}
			}
		}
	}
	consumer := &Supervisor{
		URL: b.url(), BackOff: quick(), OnError: forced(&consumerForced),
		Declare: func(ch *amqp.Channel) error {
			consumerSessions.Add(1)
			return durable(queue)(ch)
		},
	}
	stopConsumer := running(func(ctx context.Context) error {
		return consumer.Consume(ctx, queue, func(_ context.Context, d amqp.Delivery) {
			n, err := strconv.Atoi(string(d.Body))
			if err != nil {
				t.Errorf("a message of body %q", d.Body)
			}
			mu.Lock()
			consumed[n]++
			if id, ok := ids[n]; ok && id != d.MessageId {
				idMismatch++
			}
			ids[n] = d.MessageId
			mu.Unlock()
			_ = d.Ack(false)
		})
	})
	defer stopConsumer()

	pub := NewPublisher(&Supervisor{URL: b.url(), BackOff: quick(), Declare: durable(queue), OnError: forced(&publisherForced)})
	stopPublisher := running(pub.Run)
	defer stopPublisher()

	publish := func(ctx context.Context, n int) error {
		return pub.Publish(ctx, "", queue, amqp.Publishing{DeliveryMode: amqp.Persistent, Body: []byte(strconv.Itoa(n))})
	}
	var confirmed atomic.Int32
	outcome := make([]error, k) // nil: confirmed
	deadline, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var next atomic.Int32
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for n := int(next.Add(1)) - 1; n < k; n = int(next.Add(1)) - 1 {
				outcome[n] = publish(deadline, n)
				if outcome[n] == nil {
					confirmed.Add(1)
				}
			}
		})
	}
	// The second stream, until the first is done.
	firstDone := make(chan struct{})
	shortOutcome := map[int]error{}
	var shortWG sync.WaitGroup
	shortWG.Go(func() {
		for n := short; ; n++ {
			select {
			case <-firstDone:
				return
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			shortOutcome[n] = publish(ctx, n)
			cancel()
			time.Sleep(10 * time.Millisecond)
		}
	})

	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for end := time.Now().Add(90 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("waited 90s for %s", what)
			}
		}
	}
	consumedAfter := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(consumed)
	}
	var afterRestart [2]int
	for i, at := range []int32{k / 3, 2 * k / 3} {
		waitFor("confirms", func() bool { return confirmed.Load() >= at })
		b.restart(t)
		before := consumedAfter()
		waitFor("the consumer to resume", func() bool { return consumedAfter() > before })
		afterRestart[i] = consumedAfter() - before
	}
	wg.Wait()
	close(firstDone)
	shortWG.Wait()

	// Every confirmed message is consumed, in the end.
	delivered := func() bool {
		mu.Lock()
		defer mu.Unlock()
		for n, err := range outcome {
			if err == nil && consumed[n] == 0 {
				return false
			}
		}
		for n, err := range shortOutcome {
			if err == nil && consumed[n] == 0 {
				return false
			}
		}
		return true
	}
	waitFor("every confirmed message to be consumed", delivered)
	if err := stopPublisher(); !errors.Is(err, context.Canceled) {
		t.Errorf("the publisher's Run: %v", err)
	}
	if err := stopConsumer(); !errors.Is(err, context.Canceled) {
		t.Errorf("the consumer's Run: %v", err)
	}

	mu.Lock()
	defer mu.Unlock()
	var reported, reportedArrived, duplicates, shortReported, shortConfirmed int
	for n, err := range outcome {
		if err != nil {
			var u *UndeliveredError
			if !errors.As(err, &u) || !errors.Is(err, ErrUndelivered) {
				t.Errorf("message %d: %v, not an *UndeliveredError", n, err)
			}
			reported++
			if consumed[n] > 0 {
				reportedArrived++
			}
		}
	}
	for n, err := range shortOutcome {
		if err != nil {
			if !errors.Is(err, ErrUndelivered) || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("message %d: %v, want ErrUndelivered and the deadline", n, err)
			}
			shortReported++
		} else {
			shortConfirmed++
		}
	}
	for _, c := range consumed {
		duplicates += c - 1
	}
	t.Logf("%d messages: %d confirmed and consumed, %d reported (%d of which arrived), %d duplicates consumed; "+
		"second stream: %d confirmed, %d reported; consumed after each restart: %v; consumer connections %d; "+
		"connections dropped: publisher %d, consumer %d (%d with 320, connection forced)",
		k, k-reported, reported, reportedArrived, duplicates, shortConfirmed, shortReported, afterRestart,
		consumerSessions.Load(), publisherForced.Load(), consumerForced.Load(), forced320.Load())
	if reported > 0 {
		t.Errorf("%d messages with a deadline of minutes were reported undelivered", reported)
	}
	if shortReported == 0 || shortConfirmed == 0 {
		t.Errorf("second stream: %d confirmed, %d reported: a restart should catch some and not all", shortConfirmed, shortReported)
	}
	if idMismatch > 0 {
		t.Errorf("%d duplicates carried another message ID than the first delivery", idMismatch)
	}
	if consumerSessions.Load() < 3 || publisherForced.Load() < 2 || consumerForced.Load() < 2 || forced320.Load() == 0 {
		t.Errorf("consumer connections %d, connections dropped: publisher %d, consumer %d, with 320 %d: want 3, 2, 2, 1; closures: %q",
			consumerSessions.Load(), publisherForced.Load(), consumerForced.Load(), forced320.Load(), closures)
	}
}

// With no broker to be had, Publish reports the message undelivered at
// the caller's deadline, never sent, and keeps the last error.
func TestPublishReportsWhatWasNotConfirmedByTheDeadline(t *testing.T) {
	port, err := freePort() // nothing listens on it
	if err != nil {
		t.Fatal(err)
	}
	pub := NewPublisher(&Supervisor{URL: "amqp://guest:guest@127.0.0.1:" + strconv.Itoa(port) + "/", BackOff: quick()})
	stop := running(pub.Run)
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = pub.Publish(ctx, "", "q", amqp.Publishing{MessageId: "order-7", Body: []byte("7")})
	var u *UndeliveredError
	if !errors.As(err, &u) || !errors.Is(err, ErrUndelivered) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Publish: %v, want an *UndeliveredError at the deadline", err)
	}
	if u.MessageID != "order-7" || u.Attempts != 0 || time.Since(start) > 3*time.Second {
		t.Fatalf("Publish: %+v after %v", u, time.Since(start))
	}
	if err := stop(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	var be *backoff.Error
	if !errors.As(stop(), &be) || be.LastErr == nil {
		t.Fatalf("Run: %+v, want the last dial's error", be)
	}
}

// A message the broker refuses (an exchange that does not exist) is
// reported at once; the Publisher goes on with the next message.
func TestPublishReportsARefusalAtOnceAndGoesOn(t *testing.T) {
	b := needBroker(t)
	pub := NewPublisher(&Supervisor{URL: b.url(), BackOff: quick(), Declare: durable("goes-on")})
	stop := running(pub.Run)
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := pub.Publish(ctx, "no-such-exchange", "k", amqp.Publishing{Body: []byte("x")})
	var u *UndeliveredError
	var ae *amqp.Error
	if !errors.As(err, &u) || !errors.Is(u.Cause, backoff.ErrPermanent) || !errors.As(err, &ae) || ae.Code != amqp.NotFound {
		t.Fatalf("Publish to a missing exchange: %v, want ErrPermanent with 404", err)
	}
	if u.MessageID == "" || u.Attempts != 1 {
		t.Fatalf("Publish: %+v, want a message ID given and 1 attempt", u)
	}
	if err := pub.Publish(ctx, "", "goes-on", amqp.Publishing{Body: []byte("y")}); err != nil {
		t.Fatalf("the next Publish: %v", err)
	}
}

func TestPublishRefusesAPublisherNewPublisherDidNotMake(t *testing.T) {
	var p Publisher
	err := p.Publish(context.Background(), "", "q", amqp.Publishing{})
	if !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Fatalf("Publish: %v", err)
	}
	if err := p.Run(context.Background()); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Fatalf("Run: %v", err)
	}
}
