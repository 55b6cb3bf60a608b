package natsretry_test

import (
	"context"
	"fmt"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/natsretry"
	"github.com/herdsafe/backoff/policy"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A client whose reconnect waits come from DefaultBackOff: when its server
// restarts, it and the rest of its fleet come back spread over a second
// rather than together, and try less often while the server stays down.
func ExampleReconnect() {
	nc, err := nats.Connect(natsretry.ExampleURL,
		natsretry.Reconnect(natsretry.DefaultBackOff()),
		nats.MaxReconnects(-1), // reconnect for as long as the process runs
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer nc.Close()
	fmt.Println(nc.IsConnected())
	// Output: true
}

// Request retries a request that found no responder, up to 4 attempts of
// at most 500 ms each.
func ExampleRequest() {
	nc, err := nats.Connect(natsretry.ExampleURL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer nc.Close()
	sub, err := nc.Subscribe("greeter", func(m *nats.Msg) { _ = m.Respond([]byte("hello, " + string(m.Data))) })
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sub.Unsubscribe()

	p := policy.New(
		policy.Retry(backoff.WithMaxTries(4)),
		policy.Timeout(500*time.Millisecond),
	)
	reply, err := natsretry.Request(context.Background(), nc, p, "greeter", []byte("world"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(reply.Data))
	// Output: hello, world
}

// Retryable is a classifier for backoff.WithRetryable.
func ExampleRetryable() {
	fmt.Println(natsretry.Retryable(nats.ErrNoResponders))
	fmt.Println(natsretry.Retryable(nats.ErrTimeout))
	fmt.Println(natsretry.Retryable(nats.ErrBadSubject))
	fmt.Println(natsretry.Retryable(fmt.Errorf("publishing: %w", nats.ErrConnectionClosed)))
	// Output:
	// true
	// true
	// false
	// false
}

// A JetStream publish retried through the driver, with RetryablePublish
// as its classifier. Publishing again is safe with a message ID, the same
// on every attempt: the stream stores the message once, and acknowledges
// the second publish as a duplicate.
func ExampleRetryablePublish() {
	nc, err := nats.Connect(natsretry.ExampleURL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: "PAYMENTS", Subjects: []string{"payments.>"}, Storage: jetstream.MemoryStorage,
	}); err != nil {
		fmt.Println(err)
		return
	}

	id := fmt.Sprint("payment-42-", time.Now().UnixNano()) // one ID for every attempt
	publish := func(ctx context.Context) (*jetstream.PubAck, error) {
		return js.Publish(ctx, "payments.42", []byte("paid"), jetstream.WithMsgID(id))
	}
	for range 2 { // the second as a retry after a lost acknowledgement would be
		ack, err := backoff.Do(ctx, publish,
			backoff.WithMaxTries(3), backoff.WithRetryable(natsretry.RetryablePublish))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("duplicate:", ack.Duplicate)
	}
	// Output:
	// duplicate: false
	// duplicate: true
}
