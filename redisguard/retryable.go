package redisguard

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/redis/go-redis/v9"
)

// Retryable reports whether a Redis command that failed with err may
// succeed if sent again after a wait: give it to backoff.WithRetryable.
// It says yes to the replies of a server that is not ready for the
// command for a while, matched on the reply's first word:
//
//   - LOADING: the server is loading its dataset after a restart;
//   - BUSY: a script or function runs past busy-reply-threshold;
//   - TRYAGAIN: a multi-key command during a cluster's resharding;
//   - CLUSTERDOWN: the cluster cannot serve the slot for now;
//   - MASTERDOWN: a replica lost its master and serves no stale data;
//   - READONLY: a write reached a replica, as it does after a failover
//     until the client finds the new master;
//   - ERR max number of clients reached;
//
// and to a connection refused, reset or cut (a net.Error, io.EOF). It
// says no to every other reply: WRONGTYPE, a script's error, NOSCRIPT
// (go-redis's Script.Run already answers it), BUSYGROUP and BUSYKEY (not
// BUSY), OOM; to MOVED and ASK, which a cluster client follows itself; to
// a context's error; to redis.ErrClosed (the caller closed the client);
// and to a pool timeout (the caller's pool is exhausted: more attempts add
// to it).
//
// go-redis retries some of these itself (MaxRetries, 3 by default, with
// waits of at most MaxRetryBackoff): Retryable is for the retry around
// the client, across a failover or a restart that outlasts them. As with
// any retry, a write whose connection was cut may have been applied: send
// again only commands that do no harm twice.
func Retryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, redis.ErrClosed) ||
		errors.Is(err, redis.ErrPoolTimeout) {
		return false
	}
	var re redis.Error
	if errors.As(err, &re) {
		msg := re.Error()
		word, _, _ := strings.Cut(msg, " ")
		switch word {
		case "LOADING", "BUSY", "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN", "READONLY":
			return true
		}
		return strings.HasPrefix(msg, "ERR max number of clients reached")
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE)
}
