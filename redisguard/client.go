package redisguard

import (
	"github.com/redis/go-redis/v9"
)

// checkClient reports why c cannot serve a guard: it is nil, or it is a
// go-redis client that ignores context deadlines, whose round trips the
// guard's timeout could not cut short (they would last up to the client's
// ReadTimeout, 3 s by default). A Scripter of another type is trusted to
// honour the deadline of the context it is given.
func checkClient(c redis.Scripter) error {
	switch c := c.(type) {
	case nil:
		return invalid("the Redis client is nil")
	case *redis.Client:
		if c == nil {
			return invalid("the Redis client is nil")
		}
		if !c.Options().ContextTimeoutEnabled {
			return errDeadlines
		}
	case *redis.ClusterClient:
		if c == nil {
			return invalid("the Redis client is nil")
		}
		if !c.Options().ContextTimeoutEnabled {
			return errDeadlines
		}
	case *redis.Ring:
		if c == nil {
			return invalid("the Redis client is nil")
		}
		if !c.Options().ContextTimeoutEnabled {
			return errDeadlines
		}
	}
	return nil
}

var errDeadlines = invalid("the Redis client's options have ContextTimeoutEnabled false, so its calls would not honour the guard's timeout; set it to true")
