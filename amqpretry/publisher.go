package amqpretry

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"

	"github.com/herdsafe/backoff"
	amqp "github.com/rabbitmq/amqp091-go"
)

// ErrUndelivered is matched by the error of a Publish whose message the
// broker did not confirm before the caller's context was done, or that
// cannot be published at all. See UndeliveredError.
var ErrUndelivered = errors.New("amqpretry: message not delivered")

// ErrNacked is the error of an attempt the broker refused with a
// negative confirm (basic.nack): it could not take the message, for now.
var ErrNacked = errors.New("amqpretry: the broker nacked the message")

// UndeliveredError is the error of a Publish that did not get its message
// confirmed. It matches ErrUndelivered, and wraps the cause (the caller's
// context's cause, or the error that made retrying pointless) and the
// last attempt's error, so that errors.Is finds either.
type UndeliveredError struct {
	// MessageID is the message's ID: the one it was given, or the one
	// Publish gave it.
	MessageID string
	// Attempts is how many times the message was sent to the broker.
	// When it is above 0 the broker may hold the message although it did
	// not confirm it: a consumer that drops duplicates by message ID may
	// safely receive it again, from another Publish.
	Attempts int
	// Cause says why Publish stopped: the context's cause, or, for an
	// error that Retryable rejects (a message too large, an exchange
	// that does not exist), backoff.ErrPermanent.
	Cause error
	// LastErr is the last attempt's error: the closure of the
	// connection, ErrNacked, or an error of the publish; nil if there
	// was no attempt.
	LastErr error
}

// Error says which message was not delivered and why.
func (e *UndeliveredError) Error() string {
	msg := fmt.Sprintf("amqpretry: message %q not confirmed after %d attempts: %v", e.MessageID, e.Attempts, e.Cause)
	if e.LastErr != nil {
		msg += ": " + e.LastErr.Error()
	}
	return msg
}

// Unwrap returns ErrUndelivered, the cause and the last attempt's error.
func (e *UndeliveredError) Unwrap() []error {
	errs := []error{ErrUndelivered, e.Cause}
	if e.LastErr != nil {
		errs = append(errs, e.LastErr)
	}
	return errs
}

// Publisher publishes messages with publisher confirms over a Supervisor's
// connection, and publishes again on the next connection what was not
// confirmed when one closed: delivery is at least once. Make one with
// NewPublisher, run it with Run, and call Publish from any number of
// goroutines.
type Publisher struct {
	s     *Supervisor
	nacks *backoff.Retrier // waits after a negative confirm

	mu      sync.Mutex
	cur     *channel      // the channel of the current connection, or nil
	changed chan struct{} // closed when cur changes
}

// channel is a channel in confirm mode, and the context of its session,
// done when its connection closes.
type channel struct {
	ch   *amqp.Channel
	done <-chan struct{}
	ctx  context.Context
}

// NewPublisher returns a Publisher that publishes over the connections of
// s; call its Run to connect. s is not changed, and may be used by other
// Runs meanwhile.
func NewPublisher(s *Supervisor) *Publisher {
	return &Publisher{
		s:       s,
		nacks:   backoff.NewRetrier(backoff.WithBackOff(DefaultBackOff()), backoff.WithMaxElapsedTime(0)),
		changed: make(chan struct{}),
	}
}

// Run connects the Publisher, and keeps it connected, until ctx is done:
// it runs the Supervisor (see Supervisor.Run) with a session that puts
// each channel in confirm mode and hands it to Publish. It returns as
// Supervisor.Run does. Run one at a time.
func (p *Publisher) Run(ctx context.Context) error {
	if p == nil || p.s == nil {
		return &backoff.Error{Cause: settings.Invalid("Run was called on a Publisher that NewPublisher did not make from a Supervisor")}
	}
	defer p.set(nil)
	s := *p.s
	base := s.Retryable
	if base == nil {
		base = Retryable
	}
	s.Retryable = func(err error) bool {
		// A message the broker refuses (an exchange that does not exist,
		// no access to it) closes the channel with a soft error: that
		// Publish reports it, and the others go on, on a new connection.
		var d *declareError
		var e *amqp.Error
		if !errors.As(err, &d) && errors.As(err, &e) && e != nil && e.Server && e.Recover {
			return true
		}
		return base(err)
	}
	return s.Run(ctx, func(ctx context.Context, ch *amqp.Channel) error {
		if err := ch.Confirm(false); err != nil {
			return err
		}
		p.set(&channel{ch: ch, done: ctx.Done(), ctx: ctx})
		return nil
	})
}

func (p *Publisher) set(c *channel) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cur = c
	close(p.changed)
	p.changed = make(chan struct{})
}

// channel returns the channel of the current connection, waiting for one
// until ctx is done.
func (p *Publisher) channel(ctx context.Context) (*channel, error) {
	for {
		p.mu.Lock()
		cur, changed := p.cur, p.changed
		p.mu.Unlock()
		if cur != nil {
			select {
			case <-cur.done:
			default:
				return cur, nil
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// Publish publishes msg to exchange with the routing key key, and returns
// once the broker has confirmed it: nil then. A message without a
// MessageId is given one, random, before the first attempt and kept on
// every attempt, so that a consumer can drop the duplicates that
// publishing again makes.
//
// When the connection closes before the confirm arrives, Publish waits
// for the Publisher's next connection and publishes the message again on
// it; when the broker refuses the message with a negative confirm, it
// publishes it again after a wait (DefaultBackOff's). It does so until ctx
// is done, and then returns an *UndeliveredError whose Cause is ctx's
// cause: give ctx the deadline by which the message must be delivered.
//
// A message the broker refuses closes the channel, as AMQP does: Publish
// returns at once, with an *UndeliveredError whose Cause is
// backoff.ErrPermanent and whose LastErr is the broker's *amqp091.Error
// (404 for an exchange that does not exist); the Publisher connects
// again, and the other messages then in flight are published again.
//
// The message is published without the mandatory flag: the broker
// confirms a message that no queue receives, and drops it. Declare, in
// the Supervisor's Declare, the queues the messages are routed to.
// Publish is safe for concurrent use; confirms do not keep the messages
// of concurrent calls in order.
func (p *Publisher) Publish(ctx context.Context, exchange, key string, msg amqp.Publishing) error {
	if ctx == nil || p == nil || p.s == nil {
		return &UndeliveredError{MessageID: msg.MessageId, Cause: settings.Invalid("Publish was given a nil context, or called on a Publisher that NewPublisher did not make")}
	}
	if msg.MessageId == "" {
		msg.MessageId = newID()
	}
	retryable := p.s.Retryable
	if retryable == nil {
		retryable = Retryable
	}
	undelivered := func(attempts int, cause, last error) error {
		return &UndeliveredError{MessageID: msg.MessageId, Attempts: attempts, Cause: cause, LastErr: last}
	}
	var nacked *backoff.Loop
	attempts := 0
	var last error
	for {
		if ctx.Err() != nil {
			return undelivered(attempts, context.Cause(ctx), last)
		}
		c, err := p.channel(ctx)
		if err != nil {
			return undelivered(attempts, err, last)
		}
		attempts++
		confirm, err := c.ch.PublishWithDeferredConfirmWithContext(ctx, exchange, key, false, false, msg)
		if err != nil {
			last = err
			if !retryable(err) {
				return undelivered(attempts, backoff.ErrPermanent, err)
			}
			// The channel is closing: wait for the next.
			select {
			case <-c.done:
			case <-ctx.Done():
			}
			continue
		}
		select {
		case <-confirm.Done():
		case <-c.done:
			last = context.Cause(c.ctx)
			if !retryable(last) {
				return undelivered(attempts, backoff.ErrPermanent, last)
			}
			continue
		case <-ctx.Done():
			return undelivered(attempts, context.Cause(ctx), last)
		}
		if confirm.Acked() {
			return nil
		}
		if c.ch.IsClosed() {
			// The channel closed before the confirm came: publish
			// again on the next.
			select {
			case <-c.done:
				last = context.Cause(c.ctx)
				if !retryable(last) {
					return undelivered(attempts, backoff.ErrPermanent, last)
				}
			case <-ctx.Done():
			}
			continue
		}
		last = ErrNacked
		if nacked == nil {
			nacked = p.nacks.Loop()
			nacked.Wait(ctx) // the first returns at once
		}
		if !nacked.Wait(ctx) {
			cause := context.Cause(ctx)
			if cause == nil { // the next wait would overrun the deadline
				cause = context.DeadlineExceeded
			}
			return undelivered(attempts, cause, last)
		}
	}
}

// newID returns a random message ID: 16 bytes, in hexadecimal.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
