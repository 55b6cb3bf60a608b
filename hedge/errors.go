package hedge

import (
	"errors"

	"github.com/herdsafe/backoff/internal/setting"
)

// ErrCanceled is the cause of an attempt's context once the call no longer
// needs the attempt: another attempt succeeded, one failed fatally, or the
// call ended. An attempt's function sees it with context.Cause.
var ErrCanceled = errors.New("hedge: attempt no longer needed")

// settings makes the errors of the settings a Hedger cannot use.
const settings = setting.Package("hedge")

// errNotMade is the error of a Hedger that New did not make, such as a
// zero Hedger: it has no delay to hedge after.
var errNotMade = settings.NotMade("Hedger", "New")
