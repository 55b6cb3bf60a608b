package amqpretry

import (
	"context"
	"errors"

	"github.com/herdsafe/backoff"

	amqp "github.com/rabbitmq/amqp091-go"
)

// ErrConsumerCanceled is the error of a session whose consumer the broker
// cancelled while the channel stayed open: the queue was deleted, or, for
// a queue with replicas, its leader moved. Retryable accepts it, and the
// Supervisor consumes again on a new connection.
var ErrConsumerCanceled = errors.New("amqpretry: the broker cancelled the consumer")

// Consume runs the Supervisor (see Run) with a session that consumes queue
// on each channel and hands every delivery to handle, one at a time, on
// the goroutine of Consume. After the connection closes and the
// Supervisor connects again, it consumes again: the caller's code does
// nothing. Deliveries are not acknowledged automatically: handle acks,
// nacks or rejects each (d.Ack(false)), and a delivery that was not
// acknowledged when its connection closed is delivered again by the
// broker, with d.Redelivered set: consuming is at least once. Set the
// channel's prefetch (ch.Qos) in Declare, and declare the queue there.
//
// handle receives the session's context, done when its connection closes
// or Consume's ctx is done; it must return promptly then, as the next
// connection waits for it. A panic in handle goes on to the caller of
// Consume. Consume returns as Run does.
func (s *Supervisor) Consume(ctx context.Context, queue string, handle func(ctx context.Context, d amqp.Delivery)) error {
	if handle == nil {
		return &backoff.Error{Cause: settings.Invalid("Consume was given a nil handle function")}
	}
	return s.Run(ctx, func(ctx context.Context, ch *amqp.Channel) error {
		deliveries, err := ch.ConsumeWithContext(ctx, queue, "", false, false, false, false, nil)
		if err != nil {
			return err
		}
		for {
			select {
			case d, ok := <-deliveries:
				if !ok {
					return ErrConsumerCanceled
				}
				handle(ctx, d)
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
	})
}
