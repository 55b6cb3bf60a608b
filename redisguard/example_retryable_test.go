package redisguard_test

import (
	"context"
	"fmt"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/redisguard"
)

// Retrying a Redis command across a server's LOADING, BUSY, READONLY
// after a failover and the like, with the library's driver: Retryable
// tells those replies from the ones that no retry would change.
func ExampleRetryable() {
	client := newClient()
	defer client.Close()
	val, err := backoff.Do(context.Background(), func(ctx context.Context) (string, error) {
		if err := client.Set(ctx, "example-greeting", "hello", time.Minute).Err(); err != nil {
			return "", err
		}
		return client.Get(ctx, "example-greeting").Result()
	}, backoff.WithRetryable(redisguard.Retryable), backoff.WithMaxTries(5))
	fmt.Println(val, err)

	err = client.LPush(context.Background(), "example-greeting", "x").Err() // a string, not a list
	fmt.Println(redisguard.Retryable(err))
	// Output:
	// hello <nil>
	// false
}
