// Package natsretry makes NATS clients (github.com/nats-io/nats.go) reconnect
// and retry without a herd.
//
// nats.go reconnects by itself, after a fixed wait (ReconnectWait, 2 s by
// default) and at most 100 ms of jitter: when a server restarts, every
// client that was connected to it tries again within the same tenth of a
// second, and again two seconds later. [Reconnect] is a nats.Option that
// draws each of those waits from a backoff.BackOff instead, through the
// client's CustomReconnectDelay hook, so that a fleet spreads its attempts
// over the whole interval and backs off while the server stays down:
//
//	nc, err := nats.Connect(url,
//		natsretry.Reconnect(natsretry.DefaultBackOff()),
//		nats.MaxReconnects(-1),
//	)
//
// [Retryable] tells a request or publish error worth another attempt (no
// responders, a timeout, a connection that is reconnecting) from one that
// is not (a bad subject, a payload too large, a permission refused, a
// connection closed for good); [RetryablePublish] does the same for the
// acknowledgement of a JetStream publish. Give either to
// backoff.WithRetryable. [Request] sends a request through a policy.Policy,
// retrying what Retryable accepts.
//
// Everything here is safe for concurrent use.
package natsretry
