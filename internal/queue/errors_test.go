package queue_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/internal/queue"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
)

// Each guard's refusals match its own sentinel, and not another guard's:
// the errors are made from the sentinel each Queue is given.
func TestRefusalsMatchTheirGuardsSentinel(t *testing.T) {
	errA, errB := errors.New("a: full"), errors.New("b: limit reached")
	// refusals returns a Queue's refusals: without a queue, with the queue
	// full, and at the maximum wait.
	refusals := func(sentinel error) (errs []error) {
		synctest.Test(t, func(t *testing.T) {
			bare := new(queue.Queue)
			bare.Init(queue.Config{Limit: 0, Clock: clock.New(), Name: "a", Refused: sentinel})
			q := new(queue.Queue)
			q.Init(queue.Config{Settings: queue.Settings{Size: 1, MaxWait: time.Second}, Limit: 1, Clock: clock.New(), Name: "a", Refused: sentinel})
			g := gate{q}
			fill(t, g, 1)
			w := guardtest.NewWaiters(1)
			w.Start(g, context.Background(), 1)
			synctest.Wait()
			full := q.Acquire(context.Background())
			errs = []error{bare.Acquire(context.Background()), full, w.Wait().Err}
			release(g, 1)
		})
		return errs
	}
	for _, c := range []struct{ own, other error }{{errA, errB}, {errB, errA}} {
		for _, err := range refusals(c.own) {
			if !errors.Is(err, c.own) || errors.Is(err, c.other) || queue.GaveUp(err) {
				t.Errorf("%v: want it to match %v alone, as a refusal", err, c.own)
			}
		}
	}
}

// The error of a caller that gave up names its guard and the context's
// cause, and matches ctx.Err() and context.Cause(ctx); GaveUp tells it
// from a refusal.
func TestCanceled(t *testing.T) {
	cause := errors.New("shutting down")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	err := queue.Canceled("limiter", ctx)
	if err.Error() != "limiter: not admitted: shutting down" || !errors.Is(err, context.Canceled) || !errors.Is(err, cause) {
		t.Errorf("Canceled = %q, want the guard's name and the cause, matching both", err)
	}
	if !queue.GaveUp(err) || queue.GaveUp(cause) || queue.GaveUp(nil) {
		t.Error("GaveUp does not tell the error of a caller that gave up from others")
	}
}
