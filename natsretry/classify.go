package natsretry

import (
	"errors"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Retryable reports whether a request or publish that failed with err is
// worth another attempt; give it to backoff.WithRetryable.
//
// It accepts the failures that another attempt, a little later, may not
// meet: no responders (nats.ErrNoResponders: the service is restarting or
// not yet subscribed), a timeout (nats.ErrTimeout, or an attempt's own
// context.DeadlineExceeded), a connection that is reconnecting or
// disconnected, or whose reconnect buffer is full, a stale connection, no
// server available, a server at its connection limit, and network errors.
//
// It rejects what another attempt would meet again: a connection closed
// for good (nats.ErrConnectionClosed: nats.go never reopens a closed
// connection) or draining, a bad subject or message, a payload above the
// server's maximum, a permission or authorization refused, headers the
// server does not support, and a nil or invalid argument or context.
//
// An error it does not know is retried, as the driver retries every error
// when it has no classifier. A request that timed out may have been
// served: retry only requests the responder may receive twice.
func Retryable(err error) bool {
	if err == nil {
		return false
	}
	for _, perm := range permanent {
		if errors.Is(err, perm) {
			return false
		}
	}
	return true
}

// permanent are the errors of nats.go that another attempt would meet
// again.
var permanent = []error{
	nats.ErrConnectionClosed,
	nats.ErrConnectionDraining,
	nats.ErrDrainTimeout,
	nats.ErrBadSubject,
	nats.ErrBadQueueName,
	nats.ErrBadSubscription,
	nats.ErrTypeSubscription,
	nats.ErrBadTimeout,
	nats.ErrMaxPayload,
	nats.ErrMaxMessages,
	nats.ErrAuthorization,
	nats.ErrAuthExpired,
	nats.ErrAuthRevoked,
	nats.ErrAccountAuthExpired,
	nats.ErrPermissionViolation,
	nats.ErrHeadersNotSupported,
	nats.ErrBadHeaderMsg,
	nats.ErrInvalidConnection,
	nats.ErrInvalidMsg,
	nats.ErrInvalidArg,
	nats.ErrInvalidContext,
	nats.ErrNoDeadlineContext,
	nats.ErrSecureConnRequired,
	nats.ErrSecureConnWanted,
	nats.ErrMaxSubscriptionsExceeded,
	nats.ErrMsgNoReply,
	nats.ErrMsgNotBound,
}

// RetryablePublish reports whether a JetStream publish that failed with
// err, from package jetstream or from the older nats.JetStreamContext, is
// worth another attempt; give it to backoff.WithRetryable.
//
// It accepts what Retryable accepts, and: no response from the stream
// (jetstream.ErrNoStreamResponse: no stream listens on the subject yet,
// or its leader is being elected), an asynchronous publish that timed out
// waiting for its acknowledgement, and an API error the server reports
// with a status of 408, 429 or 5xx (JetStream unavailable, insufficient
// resources for now). It rejects an API error with any other status (a
// wrong expected last sequence, a stream not found, a message too large,
// a bad request) and an acknowledgement that cannot be read
// (jetstream.ErrInvalidJSAck).
//
// A publish that timed out may have been stored: publish again only with
// a message ID (jetstream.WithMsgID, the Nats-Msg-Id header), the same on
// every attempt, so that the stream drops the duplicate within its
// duplicate window. The acknowledgement of such a duplicate says so
// (jetstream.PubAck.Duplicate).
func RetryablePublish(err error) bool {
	if err == nil {
		return false
	}
	if status, ok := apiStatus(err); ok {
		return status == 408 || status == 429 || status >= 500
	}
	switch {
	case errors.Is(err, jetstream.ErrNoStreamResponse),
		errors.Is(err, nats.ErrNoStreamResponse),
		errors.Is(err, jetstream.ErrAsyncPublishTimeout),
		errors.Is(err, nats.ErrNoResponders):
		return true
	case errors.Is(err, jetstream.ErrInvalidJSAck),
		errors.Is(err, nats.ErrInvalidJSAck):
		return false
	}
	return Retryable(err)
}

// apiStatus returns the status of a JetStream API error in err's chain.
func apiStatus(err error) (int, bool) {
	var api *jetstream.APIError
	if errors.As(err, &api) && api != nil {
		return api.Code, true
	}
	var old *nats.APIError
	if errors.As(err, &old) && old != nil {
		return old.Code, true
	}
	return 0, false
}
