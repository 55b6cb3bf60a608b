package policy

import (
	"errors"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
)

// Guard returns a stage that asks g to admit each call that reaches it
// and tells g how the call ended, as guard.Run does. A refusal ends the
// call at once with an error that matches backoff.ErrRefused and wraps the
// guard's: a retry stage around the guard stops (its Cause is that error,
// its LastErr the last error of an attempt that ran), and a fallback
// around it is called. A nil g, typed or not, is reported as
// backoff.ErrInvalidConfiguration, and so is a g that implements
// guard.Validator and reports an error: the Policy then fails every call
// before running anything.
//
// The stage calls Allow and Record on the goroutine of the call, and holds
// no lock while the stages inside it run. If the call panics, Record is
// called, with guard.ErrPanicked, before the panic goes on, so a guard
// holds nothing for a call that is gone; a panic in Allow or Record itself
// goes on unchanged.
func Guard(g guard.Guard) Stage {
	switch isNil, err := guard.Check(g); {
	case isNil:
		return Stage{err: settings.Invalid("Guard was given a nil guard.Guard")}
	case err != nil:
		if !errors.Is(err, backoff.ErrInvalidConfiguration) {
			err = settings.Invalid("%T: %w", g, err)
		}
		return Stage{err: err}
	}
	return Stage{kind: guardStage, v: g}
}
