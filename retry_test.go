package backoff

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The operation is not called when the context is already done, and the
// context's cause is reported.
func TestDriverWithAContextAlreadyDone(t *testing.T) {
	errShutdown := errors.New("shutting down")
	ctxs := []struct {
		name  string
		ctx   func() context.Context
		cause error
	}{
		{"cancelled", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, context.Canceled},
		{"cancelled with a cause", func() context.Context {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(errShutdown)
			return ctx
		}, errShutdown},
		{"deadline passed", func() context.Context {
			ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
			_ = cancel // already expired; cancel would change nothing
			return ctx
		}, context.DeadlineExceeded},
	}
	for _, c := range ctxs {
		for _, e := range specCtxEntries {
			t.Run(c.name+"/"+e.name, func(t *testing.T) {
				op := specAlways()
				res, err := e.run(c.ctx(), op.Run)
				if !e.live {
					// RetryCtx's contract: "It ensures the operation is executed at
					// least once": once, then the context's cause, with the
					// operation's error and its last result.
					if op.Count() != 1 {
						t.Errorf("the operation ran %d times, want 1", op.Count())
					}
					re := specCheckStop(t, err, c.cause, attemptErr(1))
					if re.Attempts != 1 || (e.hasResult && res != 1) {
						t.Errorf("Attempts = %d, result %d; want 1 and the last result, 1", re.Attempts, res)
					}
					return
				}
				// Do and DoErr: "never started once ctx is done".
				if op.Count() != 0 {
					t.Errorf("the operation ran %d times, want 0", op.Count())
				}
				re := specCheckStop(t, err, c.cause, nil)
				if re.Attempts != 0 {
					t.Errorf("Attempts = %d, want 0", re.Attempts)
				}
				if got, want := err.Error(), c.cause.Error(); got != want {
					t.Errorf("Error() = %q, want the cause %q", got, want)
				}
			})
		}
	}
	// A RetryCtx operation that succeeds although ctx is done succeeds.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if v, err := RetryCtx(ctx, succeed); v != 1 || err != nil {
		t.Errorf("RetryCtx with a done context and a successful operation: (%d, %v), want (1, nil)", v, err)
	}
}
