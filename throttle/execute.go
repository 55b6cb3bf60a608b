package throttle

import (
	"context"

	"github.com/herdsafe/backoff"
)

// Execute runs fn under the Throttle, as backoff.RunGuarded does: it asks
// Allow, and if admitted calls fn and tells Record how it ended, even if fn panics (the panic then goes
// on, and the call counts as not accepted). A rejection returns
// ErrThrottled without calling fn. A call whose ctx is done when fn
// returns is recorded as abandoned.
func (t *Throttle) Execute(ctx context.Context, fn func(context.Context) error) error {
	return backoff.RunGuarded(ctx, t, backoff.Call{Attempt: 1}, fn)
}
