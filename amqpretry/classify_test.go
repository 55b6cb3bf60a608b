package amqpretry

import (
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"
)

func TestRetryableByCode(t *testing.T) {
	server := func(code int) *amqp.Error { return &amqp.Error{Code: code, Reason: "x", Server: true} }
	client := func(code int) *amqp.Error { return &amqp.Error{Code: code, Reason: "x"} }
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{server(amqp.ConnectionForced), true},
		{server(amqp.ResourceError), true},
		{server(amqp.ResourceLocked), true},
		{server(amqp.InternalError), true},
		{amqp.ErrClosed, true},
		{client(amqp.FrameError), true}, // the network failed
		{amqp.ErrCommandInvalid, true},
		{io.EOF, true},
		{&net.OpError{Op: "dial", Err: errors.New("connection refused")}, true},
		{server(amqp.AccessRefused), false},
		{amqp.ErrCredentials, false},
		{amqp.ErrVhost, false},
		{server(amqp.PreconditionFailed), false},
		{server(amqp.NotFound), false},
		{server(amqp.InvalidPath), false},
		{server(amqp.NotAllowed), false},
		{server(amqp.NotImplemented), false},
		{server(amqp.ContentTooLarge), false},
		{amqp.ErrFieldType, false},
		{server(amqp.FrameError), false},
		{server(amqp.CommandInvalid), false},
		{nil, false},
	} {
		if got := Retryable(tc.err); got != tc.want {
			t.Errorf("Retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
		if tc.err != nil {
			if got := Retryable(fmt.Errorf("wrapped: %w", tc.err)); got != tc.want {
				t.Errorf("Retryable(wrapped %v) = %v, want %v", tc.err, got, tc.want)
			}
		}
	}
}
