package natsretry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func TestRetryableByName(t *testing.T) {
	for _, err := range []error{
		nats.ErrNoResponders, nats.ErrTimeout, context.DeadlineExceeded,
		nats.ErrConnectionReconnecting, nats.ErrDisconnected, nats.ErrReconnectBufExceeded,
		nats.ErrStaleConnection, nats.ErrNoServers, nats.ErrMaxConnectionsExceeded,
		&net.OpError{Op: "dial", Err: errors.New("connection refused")},
		errors.New("an error nobody knows"),
	} {
		if !Retryable(err) || !Retryable(fmt.Errorf("wrapped: %w", err)) {
			t.Errorf("Retryable(%v) = false, want true", err)
		}
	}
	for _, err := range append([]error{nil}, permanent...) {
		if Retryable(err) || (err != nil && Retryable(fmt.Errorf("wrapped: %w", err))) {
			t.Errorf("Retryable(%v) = true, want false", err)
		}
	}
}

func TestRetryablePublishByName(t *testing.T) {
	api := func(code int, ec jetstream.ErrorCode) error {
		return fmt.Errorf("nats: %w", &jetstream.APIError{Code: code, ErrorCode: ec, Description: "x"})
	}
	for _, err := range []error{
		jetstream.ErrNoStreamResponse, nats.ErrNoStreamResponse, jetstream.ErrAsyncPublishTimeout,
		nats.ErrNoResponders, nats.ErrTimeout, context.DeadlineExceeded, nats.ErrConnectionReconnecting,
		api(503, 10008), api(500, 10023), api(429, 0), api(408, 0),
		&nats.APIError{Code: 503, ErrorCode: 10008},
	} {
		if !RetryablePublish(err) {
			t.Errorf("RetryablePublish(%v) = false, want true", err)
		}
	}
	for _, err := range []error{
		nil, jetstream.ErrInvalidJSAck, nats.ErrInvalidJSAck, nats.ErrConnectionClosed, nats.ErrMaxPayload,
		api(400, jetstream.JSErrCodeStreamWrongLastSequence), api(404, jetstream.JSErrCodeStreamNotFound),
		&nats.APIError{Code: 400, ErrorCode: 10071},
	} {
		if RetryablePublish(err) {
			t.Errorf("RetryablePublish(%v) = true, want false", err)
		}
	}
}

// The classifiers judge the errors a real server makes as their documents
// say.
func TestRetryableOnARealServer(t *testing.T) {
	srv := needNATS(t)
	nc, err := nats.Connect(srv.url())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	_, noResp := nc.RequestWithContext(ctx, "nobody.listens", nil)
	if !errors.Is(noResp, nats.ErrNoResponders) || !Retryable(noResp) {
		t.Errorf("request with no responder: %v, Retryable %v", noResp, Retryable(noResp))
	}
	sub, err := nc.SubscribeSync("silent") // subscribed, never answers
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	_, timeout := nc.Request("silent", nil, 50*time.Millisecond)
	if !errors.Is(timeout, nats.ErrTimeout) || !Retryable(timeout) {
		t.Errorf("request never answered: %v, Retryable %v", timeout, Retryable(timeout))
	}
	if err := nc.Publish("bad subject", nil); err == nil || Retryable(err) {
		t.Errorf("publish to a bad subject: %v, Retryable %v", err, Retryable(err))
	}
	big := make([]byte, nc.MaxPayload()+1)
	if err := nc.Publish("big", big); !errors.Is(err, nats.ErrMaxPayload) || Retryable(err) {
		t.Errorf("publish above the maximum payload: %v, Retryable %v", err, Retryable(err))
	}

	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	_, noStream := js.Publish(ctx, "no.stream.here", []byte("x"))
	if !RetryablePublish(noStream) {
		t.Errorf("JetStream publish with no stream: %v, RetryablePublish false", noStream)
	}
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "ORDERS", Subjects: []string{"orders.>"}}); err != nil {
		t.Fatal(err)
	}
	ack, err := js.Publish(ctx, "orders.1", []byte("1"), jetstream.WithMsgID("order-1"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := js.Publish(ctx, "orders.1", []byte("1"), jetstream.WithMsgID("order-1"))
	if err != nil || !again.Duplicate || again.Sequence != ack.Sequence {
		t.Errorf("the same message ID again: %+v, %v; want a duplicate of sequence %d", again, err, ack.Sequence)
	}
	_, wrongSeq := js.Publish(ctx, "orders.2", []byte("2"), jetstream.WithExpectLastSequence(ack.Sequence+10))
	if wrongSeq == nil || RetryablePublish(wrongSeq) {
		t.Errorf("publish expecting a wrong last sequence: %v, RetryablePublish %v", wrongSeq, RetryablePublish(wrongSeq))
	}

	nc.Close()
	_, closed := nc.RequestWithContext(ctx, "any", nil)
	if !errors.Is(closed, nats.ErrConnectionClosed) || Retryable(closed) {
		t.Errorf("request on a closed connection: %v, Retryable %v", closed, Retryable(closed))
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
