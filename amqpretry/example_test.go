package amqpretry_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/herdsafe/backoff/amqpretry"
	amqp "github.com/rabbitmq/amqp091-go"
)

// A consumer that keeps consuming across restarts of the broker: the
// Supervisor connects again after a jittered wait and consumes again, and
// the handler never knows. Here it stops after the first message.
func ExampleSupervisor_Consume() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := &amqpretry.Supervisor{
		URL: amqpretry.ExampleURL,
		Declare: func(ch *amqp.Channel) error {
			if _, err := ch.QueueDeclare("example-orders", true, false, false, false, nil); err != nil {
				return err
			}
			return ch.Qos(50, 0, false) // at most 50 unacknowledged deliveries
		},
		OnError: func(err error) { log.Printf("connection lost; reconnecting: %v", err) },
	}
	go publishOne(ctx, "example-orders", "order 1")

	err := s.Consume(ctx, "example-orders", func(ctx context.Context, d amqp.Delivery) {
		fmt.Println(string(d.Body))
		_ = d.Ack(false)
		cancel() // done: a real consumer runs until its process stops
	})
	fmt.Println(errors.Is(err, context.Canceled))
	// Output:
	// order 1
	// true
}

// A publisher with confirms: Publish returns once the broker has
// confirmed the message, publishing it again on the next connection if
// one drops first, or reports it undelivered at the caller's deadline.
func ExamplePublisher() {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	pub := amqpretry.NewPublisher(&amqpretry.Supervisor{
		URL: amqpretry.ExampleURL,
		Declare: func(ch *amqp.Channel) error {
			_, err := ch.QueueDeclare("example-invoices", true, false, false, false, nil)
			return err
		},
	})
	done := make(chan error, 1)
	go func() { done <- pub.Run(ctx) }()

	deadline, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err := pub.Publish(deadline, "", "example-invoices", amqp.Publishing{
		MessageId:    "invoice-1001", // consumers drop duplicates by it
		DeliveryMode: amqp.Persistent,
		Body:         []byte("1001"),
	})
	var undelivered *amqpretry.UndeliveredError
	switch {
	case errors.As(err, &undelivered):
		fmt.Printf("not confirmed after %d attempts: %v\n", undelivered.Attempts, err)
	case err != nil:
		fmt.Println(err)
	default:
		fmt.Println("confirmed")
	}
	stop()
	<-done
	// Output: confirmed
}

// Retryable classifies the broker's closures.
func ExampleRetryable() {
	forced := &amqp.Error{Code: amqp.ConnectionForced, Reason: "CONNECTION_FORCED - broker forced connection closure with reason 'shutdown'", Server: true}
	precondition := &amqp.Error{Code: amqp.PreconditionFailed, Reason: "PRECONDITION_FAILED - inequivalent arg 'durable'", Server: true}
	fmt.Println(amqpretry.Retryable(forced))
	fmt.Println(amqpretry.Retryable(precondition))
	fmt.Println(amqpretry.Retryable(amqp.ErrCredentials))
	// Output:
	// true
	// false
	// false
}

// publishOne publishes body to queue over a plain connection.
func publishOne(ctx context.Context, queue, body string) {
	conn, err := amqp.Dial(amqpretry.ExampleURL)
	if err != nil {
		log.Print(err)
		return
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		log.Print(err)
		return
	}
	if _, err := ch.QueueDeclare(queue, true, false, false, false, nil); err != nil {
		log.Print(err)
		return
	}
	if err := ch.PublishWithContext(ctx, "", queue, false, false, amqp.Publishing{Body: []byte(body)}); err != nil {
		log.Print(err)
	}
}
