package amqpretry

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	amqp "github.com/rabbitmq/amqp091-go"
)

// The queue is deleted under a consumer: the broker cancels the consumer
// and the channel stays open. Consume connects again, Declare declares
// the queue again, and the consumer receives what is published to it.
func TestConsumeResumesAfterTheBrokerCancelsTheConsumer(t *testing.T) {
	b := needBroker(t)
	const queue = "cancel-me"
	var errs []error
	s := &Supervisor{
		URL: b.url(), BackOff: quick(), Declare: durable(queue),
		OnError: func(err error) { errs = append(errs, err) },
	}
	got := make(chan string, 10)
	stop := running(func(ctx context.Context) error {
		return s.Consume(ctx, queue, func(_ context.Context, d amqp.Delivery) {
			got <- string(d.Body)
			_ = d.Ack(false)
		})
	})
	defer stop()
	ch := openChannel(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	publish := func(body string) {
		t.Helper()
		if err := ch.PublishWithContext(ctx, "", queue, false, false, amqp.Publishing{Body: []byte(body)}); err != nil {
			t.Fatal(err)
		}
	}
	receive := func(want string) {
		t.Helper()
		select {
		case m := <-got:
			if m != want {
				t.Fatalf("received %q, want %q", m, want)
			}
		case <-ctx.Done():
			t.Fatalf("received nothing; want %q", want)
		}
	}
	waitUntil(t, "the consumer", 10*time.Second, func() bool { return consumers(b, queue) == 1 })
	publish("before")
	receive("before")
	if _, err := ch.QueueDelete(queue, false, false, false); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the queue declared again, and consumed", 10*time.Second, func() bool { return consumers(b, queue) == 1 })
	publish("after")
	receive("after")
	err := stop()
	var be *backoff.Error
	if !errors.As(err, &be) || !errors.Is(be.Cause, context.Canceled) {
		t.Fatalf("Consume: %v", err)
	}
	if len(errs) == 0 || !errors.Is(errs[0], ErrConsumerCanceled) {
		t.Fatalf("errors reported: %v, want ErrConsumerCanceled first", errs)
	}
}

func TestConsumeRefusesANilHandler(t *testing.T) {
	err := (&Supervisor{URL: "amqp://x"}).Consume(context.Background(), "q", nil)
	if !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Fatalf("Consume: %v", err)
	}
}

// consumers returns the number of consumers of queue, or -1 if it does
// not exist (a passive declaration of a missing queue closes its channel:
// each call uses a connection of its own).
func consumers(b *rabbit, queue string) int {
	conn, err := amqp.Dial(b.url())
	if err != nil {
		return -1
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return -1
	}
	q, err := ch.QueueDeclarePassive(queue, true, false, false, false, nil)
	if err != nil {
		return -1
	}
	return q.Consumers
}
