package throttle

import (
	"context"

	"github.com/herdsafe/backoff/guard"
)

// Run runs fn under the Throttle: it is [guard.Run] with
// guard.Call{Attempt: 1}. It asks Allow, and if admitted calls fn and
// tells Record how it ended, even if fn panics (the panic then goes on,
// and the call counts as not accepted). A rejection returns, without
// calling fn, an error that matches [backoff.ErrRefused] and wraps
// ErrThrottled, which stops a retry driver around Run at once. A call
// whose ctx is done when fn returns is recorded as abandoned.
func (t *Throttle) Run(ctx context.Context, fn func(context.Context) error) error {
	return guard.Run(ctx, t, guard.Call{Attempt: 1}, fn)
}
