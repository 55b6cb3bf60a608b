package telemetrytest

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
)

// CancelDuringTheWait runs retry on a goroutine of its own, with a context
// of parent's that it cancels once the goroutine is durably blocked: once
// the retry waits before its next attempt. It fails t unless retry then
// returns an error matching context.Canceled. It must be called in a
// synctest bubble (synctest.Test).
func CancelDuringTheWait(t *testing.T, parent context.Context, retry func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	done := make(chan error)
	go func() { done <- retry(ctx) }()
	synctest.Wait() // the retry waits before its next attempt
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the retry returned %v, want context.Canceled", err)
	}
}
