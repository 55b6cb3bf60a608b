package policy_test

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/policy"
)

// At most 2 tries on a timeout and 5 on a refused connection, 6 in all: a
// dependency that keeps timing out is given up on sooner than one that is
// still starting.
func ExampleRetryByKind() {
	kindOf := func(err error) string {
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return "timeout"
		case errors.Is(err, syscall.ECONNREFUSED):
			return "refused"
		}
		return "" // no kind: only WithMaxTries limits it
	}
	p := policy.New(policy.RetryByKind(kindOf, map[string]int{"timeout": 2, "refused": 5},
		backoff.WithMaxTries(6), backoff.WithBackOff(&backoff.ZeroBackOff{})))

	attempts := 0
	err := p.DoErr(context.Background(), func(context.Context) error {
		attempts++
		if attempts < 3 {
			return syscall.ECONNREFUSED // starting up
		}
		return fmt.Errorf("read: %w", context.DeadlineExceeded) // then too slow
	})
	var ke *policy.KindExhaustedError
	if errors.As(err, &ke) {
		fmt.Printf("gave up after %d attempts: %d tries on a %s (%v)\n", attempts, ke.Tries, ke.Kind, err)
	}
	fmt.Println("permanent:", errors.Is(err, backoff.ErrPermanent))
	// Output:
	// gave up after 4 attempts: 2 tries on a timeout (read: context deadline exceeded)
	// permanent: true
}
