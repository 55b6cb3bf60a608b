package redisguard

import (
	"github.com/herdsafe/backoff/internal/typednil"
	"github.com/redis/go-redis/v9"
)

// checkClient reports why c cannot serve a guard: it is nil, or it is a
// go-redis client that ignores context deadlines, whose round trips the
// guard's timeout could not cut short (they would last up to the client's
// ReadTimeout, 3 s by default). A Scripter of another type is trusted to
// honour the deadline of the context it is given.
func checkClient(c redis.Scripter) error {
	if c == nil || typednil.Is(c) {
		return settings.Invalid("the Redis client is nil")
	}
	var deadlines bool
	switch c := c.(type) {
	case *redis.Client:
		deadlines = c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		deadlines = c.Options().ContextTimeoutEnabled
	case *redis.Ring:
		deadlines = c.Options().ContextTimeoutEnabled
	default:
		return nil
	}
	if !deadlines {
		return settings.Invalid("the Redis client's options have ContextTimeoutEnabled false, so its calls would not honour the guard's timeout; set it to true")
	}
	return nil
}
