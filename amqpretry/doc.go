// Package amqpretry keeps RabbitMQ clients (github.com/rabbitmq/amqp091-go)
// connected without a herd, and publishes without losing messages.
//
// amqp091-go does not reconnect unless asked (its Config.Recovery, off by
// default, waits a fixed interval between attempts). A [Supervisor] does,
// built on backoff.Loop: it dials, opens a channel, runs the caller's
// declarations on it, runs the caller's session (consuming, publishing),
// and when the connection or the channel closes (NotifyClose) it waits a
// jittered, growing interval and does it all again. The waits start over
// once a connection has lasted (StableAfter), so a fleet that loses its
// broker together comes back spread over the first interval rather than
// in one instant, and one that is refused again and again backs off.
//
//	s := &amqpretry.Supervisor{
//		URL: "amqp://guest:guest@localhost:5672/",
//		Declare: func(ch *amqp.Channel) error {
//			_, err := ch.QueueDeclare("orders", true, false, false, false, nil)
//			return err
//		},
//	}
//	err := s.Consume(ctx, "orders", func(ctx context.Context, d amqp.Delivery) {
//		handle(d.Body)
//		_ = d.Ack(false)
//	})
//
// [Supervisor.Consume] consumes a queue on every connection: after a
// restart of the broker it consumes again, and the caller's code does
// nothing. A [Publisher] publishes with publisher confirms, and publishes
// again on the next connection what was not confirmed when one dropped:
// at least once, each message with a message ID, the same on every
// attempt, so that a consumer can drop the duplicates. What is not
// confirmed before the caller's deadline is reported, as an
// [*UndeliveredError].
//
// [Retryable] tells the closures worth reconnecting after (a connection
// forced closed by the broker, 320; a resource error, 506; a resource
// locked, 405; a broken network) from those that are not (access refused,
// 403; precondition failed, 406; not found, 404): a Supervisor stops at
// the latter and returns the error.
package amqpretry
