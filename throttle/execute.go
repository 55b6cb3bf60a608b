package throttle

import (
	"context"
	"errors"
	"fmt"

	"github.com/herdsafe/backoff"
)

// errPanicked is the Outcome.Err that Execute records for a call that
// panicked.
var errPanicked = errors.New("throttle: the call panicked")

// Execute runs fn under the Throttle: it asks Allow, and if admitted calls
// fn and tells Record how it ended, even if fn panics (the panic then goes
// on, and the call counts as not accepted). A rejection returns
// ErrThrottled without calling fn. A call whose ctx is done when fn
// returns is recorded as abandoned.
func (t *Throttle) Execute(ctx context.Context, fn func(context.Context) error) error {
	if ctx == nil || fn == nil {
		return fmt.Errorf("%w: throttle: Execute was given a nil context or function", backoff.ErrInvalidConfiguration)
	}
	p, err := t.Allow(ctx, backoff.Call{Attempt: 1})
	if err != nil {
		return err
	}
	recorded := false
	defer func() {
		if !recorded {
			t.Record(p, backoff.Outcome{Err: errPanicked})
		}
	}()
	err = fn(ctx)
	recorded = true
	t.Record(p, backoff.Outcome{Err: err, Abandoned: ctx.Err() != nil})
	return err
}
